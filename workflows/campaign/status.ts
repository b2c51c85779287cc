import type { CampaignState, CampaignStatus, PoolVersion } from '../../schemas/campaign.js';

/** The current pool version in brief: its number, the step it was made after, how many tasks it swapped. */
export function poolVersionOf(history: readonly PoolVersion[]) {
  const last = history[history.length - 1]!;
  return { version: last.version, step: last.step, left: last.left.length, entered: last.entered.length };
}

/** What the status query answers (and what `campaign status` shows for a finished campaign, from its result). */
export function statusOf(campaignId: string, state: CampaignState, currentChild: string | null): CampaignStatus {
  return {
    campaignId,
    phase: state.phase,
    step: state.step,
    maxSteps: state.maxSteps,
    poolSize: state.pool ? state.pool.length : null,
    ...(state.poolHistory?.length ? { poolVersion: poolVersionOf(state.poolHistory) } : {}),
    ...(state.referenceResultSet
      ? {
          solvabilityGate: {
            referenceResultSet: state.referenceResultSet,
            applied: state.referenceGated ?? true,
            dropped: state.droppedByReference ?? null,
            solved: state.solvedByReference ?? null,
          },
        }
      : {}),
    episodes: state.episodes,
    lastMetrics: state.lastMetrics,
    paused: state.paused,
    stopAfterStep: state.stopAfterStep,
    failedStep: state.failedStep,
    currentChild,
    run: state.runs,
    costUsd: state.costUsd,
  };
}

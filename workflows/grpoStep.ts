import { ApplicationFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import type { BatchEpisode } from '../activities/training.js';
import { FailureType } from '../infra/failure-types.js';
import type { ChildProgress } from '../schemas/campaign.js';
import type { EpisodeOutcome } from '../schemas/episode.js';
import type { GrpoStepInput, GrpoStepResult } from '../schemas/pipeline.js';
import { progressQuery } from './definitions.js';
import { episodeRequest, runEpisode, type EpisodeAttempt } from './episodes.js';
import type { GpuActivities } from './gpu.js';
import { drawTasks } from './sampling.js';

const control = proxyActivities<ControlActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: [FailureType.userError, FailureType.unusableBatch] },
});
const publisher = proxyActivities<ControlActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 10, initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

interface GroupRun {
  group: number;
  taskId: string;
  attempts: EpisodeAttempt[];
}

type GroupFate = 'informative' | 'zero-variance' | 'infra' | 'malformed';

function fateOf(run: GroupRun): GroupFate {
  if (run.attempts.some((a) => a.kind === 'malformed')) return 'malformed';
  if (run.attempts.some((a) => a.kind === 'infra')) return 'infra';
  const rewards = run.attempts.map((a) => (a as { outcome: EpisodeOutcome }).outcome.reward);
  return rewards.every((r) => r === rewards[0]) ? 'zero-variance' : 'informative';
}

/**
 * One GRPO step: G groups of K episodes on tasks drawn from the frozen pool; zero-variance groups are replaced (DAPO
 * dynamic sampling) and groups with an episode that still failed after its retries are discarded and refilled, in at
 * most maxReplacementRounds extra rounds; then buildBatch, policyUpdate (gpu queue) and publishPolicy.
 */
export async function grpoStep(input: GrpoStepInput): Promise<GrpoStepResult> {
  const { settings, step, campaignId } = input;
  const progress: ChildProgress = { kind: 'grpoStep', planned: 0, done: 0, inFlight: 0, infraFailed: 0 };
  setHandler(progressQuery, () => progress);
  const resultSet = `${campaignId}/step-${step}`;
  let sampler = input.sampler;
  let nextGroup = 0;
  const informative: GroupRun[] = [];
  // Groups the update uses: the informative ones, plus zero-variance ones when the config keeps them (plain GRPO).
  const kept: GroupRun[] = [];
  const counts = { zeroVariance: 0, infraGroups: 0, replacements: 0, refills: 0, scoredEpisodes: 0, rewardSum: 0, costUsd: 0 };
  // Groups the previous round discarded: the next round's fresh groups replace (zero variance) or refill (infra) them.
  let discarded = { zeroVariance: 0, infra: 0 };
  const malformed = new Set<string>();
  const pool = [...input.pool];

  const runGroup = async (taskId: string): Promise<GroupRun> => {
    const group = nextGroup++;
    progress.planned += input.rollouts;
    progress.inFlight += input.rollouts;
    const attempts = await Promise.all(
      Array.from({ length: input.rollouts }, async (_, trial) => {
        const episodeId = `${resultSet}/g${group}-t${trial}`;
        const request = episodeRequest(settings, { episodeId, taskId, taskSet: input.taskSet, trial, campaignId, step, group });
        const attempt = await runEpisode(settings, `g${group}-t${trial}`, request);
        progress.inFlight -= 1;
        progress.done += 1;
        if (attempt.kind === 'infra') progress.infraFailed += 1;
        return attempt;
      }),
    );
    return { group, taskId, attempts };
  };

  for (let round = 0; round <= input.maxReplacementRounds && kept.length < input.groups; round++) {
    const usable = pool.filter((t) => !malformed.has(t));
    if (usable.length === 0) break;
    counts.replacements += discarded.zeroVariance;
    counts.refills += discarded.infra;
    discarded = { zeroVariance: 0, infra: 0 };
    const drawn = drawTasks(usable, settings.seed, sampler, input.groups - kept.length);
    sampler = drawn.sampler;
    const runs = await Promise.all(drawn.tasks.map(runGroup));
    const rows = [];
    for (const run of runs) {
      const fate = fateOf(run);
      for (const [trial, a] of run.attempts.entries()) {
        if (a.kind !== 'outcome') continue;
        rows.push({ episodeId: `${resultSet}/g${run.group}-t${trial}`, row: a.outcome });
        counts.costUsd += a.outcome.costUsd;
      }
      if (fate === 'informative' || fate === 'zero-variance') {
        counts.scoredEpisodes += run.attempts.length;
        counts.rewardSum += run.attempts.reduce((s, a) => s + (a as { outcome: EpisodeOutcome }).outcome.reward, 0);
      }
      if (fate === 'informative') {
        informative.push(run);
        kept.push(run);
      } else if (fate === 'zero-variance') {
        counts.zeroVariance += 1;
        if (input.keepZeroVarianceGroups) kept.push(run);
        else discarded.zeroVariance += 1;
      } else if (fate === 'infra') {
        counts.infraGroups += 1;
        discarded.infra += 1;
      } else malformed.add(run.taskId);
    }
    await control.storeResultRows({ resultSet, rows });
  }

  const minimum = input.allowPartialUpdate ? input.minInformativeGroups : input.groups;
  if (kept.length < minimum) {
    throw ApplicationFailure.create({
      type: FailureType.shortOfInformativeGroups,
      nonRetryable: true,
      message: `step ${step}: ${informative.length} informative groups of ${input.groups} after ${input.maxReplacementRounds} replacement rounds (${counts.zeroVariance} zero-variance, ${counts.infraGroups} lost to infrastructure failures${malformed.size ? `, malformed tasks ${[...malformed].join(', ')}` : ''})`,
      details: [{ step, informative: informative.length, zeroVariance: counts.zeroVariance, infraGroups: counts.infraGroups }],
    });
  }

  const used = kept.slice(0, input.groups);
  const batch = await control.buildBatch({
    campaignId,
    step,
    groups: used.map((run) => ({
      groupId: `g${run.group}`,
      taskId: run.taskId,
      episodes: run.attempts.map((a, trial): BatchEpisode => {
        const o = (a as { outcome: EpisodeOutcome }).outcome;
        return { episodeId: `${resultSet}/g${run.group}-t${trial}`, reward: o.reward, trainable: o.trainable, ...(o.trajectoryUri ? { trajectoryUri: o.trajectoryUri } : {}) };
      }),
    })),
    maskTruncatedTurns: input.update.maskTruncatedTurns,
    truncationPenalty: input.update.truncationPenalty,
  });
  const gpu = proxyActivities<GpuActivities>({
    taskQueue: settings.queues.gpu,
    startToCloseTimeout: input.update.timeout,
    // Inputs recorded before the key existed carry none: they keep the old fixed timeout.
    heartbeatTimeout: input.update.heartbeatTimeout ?? '5 minutes',
    retry: { maximumAttempts: 3, initialInterval: '10 seconds', backoffCoefficient: 2 },
  });
  const update = await gpu.policyUpdate({
    campaignId,
    step,
    batchUri: batch.batchUri,
    checkpointDir: input.update.checkpointDir ?? batch.checkpointDir,
    baseModel: input.update.baseModel,
    optimizer: input.update.optimizer,
    loss: input.update.loss,
    microBatchSize: input.update.microBatchSize,
    miniBatchGroups: input.update.miniBatchGroups,
    seed: settings.seed >>> 0,
  });
  if (input.policyServers.length > 0) await publisher.publishPolicy({ checkpointUri: update.checkpointUri, version: step, servers: input.policyServers });

  const scoredGroups = informative.length + counts.zeroVariance;
  const policyVersion = String(step);
  return {
    summary: {
      step,
      meanReward: counts.scoredEpisodes > 0 ? counts.rewardSum / counts.scoredEpisodes : 0,
      informativeFraction: scoredGroups > 0 ? informative.length / scoredGroups : 0,
      loss: update.metrics.loss,
      clipFraction: update.metrics.clipFraction,
      optimizerSteps: update.metrics.optimizerSteps,
      truncatedTurns: batch.truncatedTurns,
      maskedTokens: batch.maskedTokens,
      replacements: counts.replacements,
      infraFailures: progress.infraFailed,
      policyVersion,
    },
    rewards: used.map((run) => run.attempts.map((a) => (a as { outcome: EpisodeOutcome }).outcome.reward)),
    groupsUsed: used.length,
    zeroVarianceGroups: counts.zeroVariance,
    replacements: counts.replacements,
    refills: counts.refills,
    malformed: [...malformed].sort(),
    episodes: { done: progress.done, infraFailed: progress.infraFailed },
    updateMetrics: update.metrics,
    batchUri: batch.batchUri,
    checkpointUri: update.checkpointUri,
    policyVersion,
    sampler,
    costUsd: counts.costUsd,
  };
}

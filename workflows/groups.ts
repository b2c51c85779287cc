import { CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import type { StoredRow } from '../storage/results.js';
import type { ChildProgress, SamplerState } from '../schemas/campaign.js';
import type { EpisodeOutcome } from '../schemas/episode.js';
import type { GrpoStepInput } from '../schemas/pipeline.js';
import { storedRowsSummary, type EpisodeAuditTrail } from './audit.js';
import { episodeRequest, runEpisode, type EpisodeAttempt } from './episodes.js';
import { drawTasks } from './sampling.js';

const { storeResultRows } = proxyActivities<ControlActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** A group whose episodes all have an outcome: the only kind a batch can hold. */
export interface ScoredGroup {
  /** Draw order within the step: also the activity-id prefix `g<group>`. */
  group: number;
  taskId: string;
  outcomes: EpisodeOutcome[];
  informative: boolean;
}

/** A group's fate once all its episodes are back. */
export type GroupFate = { kind: 'scored'; scored: ScoredGroup } | { kind: 'infra' } | { kind: 'malformed' };

export function fateOf(group: number, taskId: string, attempts: readonly EpisodeAttempt[]): GroupFate {
  if (attempts.some((a) => a.kind === 'malformed')) return { kind: 'malformed' };
  const outcomes: EpisodeOutcome[] = [];
  for (const a of attempts) {
    if (a.kind !== 'outcome') return { kind: 'infra' };
    outcomes.push(a.outcome);
  }
  const informative = outcomes.some((o) => o.reward !== outcomes[0]!.reward);
  return { kind: 'scored', scored: { group, taskId, outcomes, informative } };
}

/** The episode id of trial `trial` of group `group` in a step's result set. */
export function groupEpisodeId(resultSet: string, group: number, trial: number): string {
  return `${resultSet}/g${group}-t${trial}`;
}

export interface CollectedGroups {
  /** The groups the update uses: the first G usable groups in draw order (usable: informative, or kept when plain GRPO). */
  used: ScoredGroup[];
  informative: number;
  zeroVariance: number;
  infraGroups: number;
  replacements: number;
  refills: number;
  /** Surplus groups cancelled once the batch was settled. */
  cancelled: number;
  malformed: string[];
  scoredEpisodes: number;
  rewardSum: number;
  costUsd: number;
  sampler: SamplerState;
}

interface InFlight {
  group: number;
  taskId: string;
  /** How many discarded groups stand before this one in its slot: a slot is replaced at most maxReplacementRounds times. */
  generation: number;
  scope: CancellationScope;
  done: boolean;
  usable?: ScoredGroup;
}

/**
 * Run a step's groups as a stream. A group that is zero-variance (under DAPO), lost to infrastructure or malformed is
 * replaced by a fresh draw the moment it is known, not at the end of a round, so a slow episode holds back only its
 * own slot. With `extraGroupsInFlight` > 0 a few more groups run than needed, to hide stragglers; once the first G
 * usable groups in draw order are complete the rest are cancelled. The batch is chosen in draw order, never in
 * completion order (which would favour short episodes), so a replay picks the same groups.
 */
export async function collectGroups(
  input: GrpoStepInput,
  resultSet: string,
  progress: ChildProgress,
  audit?: EpisodeAuditTrail,
): Promise<CollectedGroups> {
  const { settings, step, campaignId } = input;
  const target = input.groups;
  const width = target + (input.extraGroupsInFlight ?? 0);
  const counts = {
    informative: 0,
    zeroVariance: 0,
    infraGroups: 0,
    replacements: 0,
    refills: 0,
    cancelled: 0,
    scoredEpisodes: 0,
    rewardSum: 0,
    costUsd: 0,
  };
  const malformed = new Set<string>();
  const groups: InFlight[] = [];
  const rows: StoredRow[] = [];
  let sampler = input.sampler;
  let flushing: Promise<unknown> = Promise.resolve();
  const flush = () => {
    const batch = rows.splice(0, rows.length);
    if (batch.length === 0) return;
    const summary = storedRowsSummary(
      batch,
      `groups ${groups.filter((g) => g.done).length} of ${groups.length} back (${counts.informative} informative, ${counts.zeroVariance} zero-variance, ${counts.infraGroups} infra)`,
    );
    flushing = flushing.then(() => storeResultRows.executeWithOptions({ summary }, [{ resultSet, rows: batch }]));
  };

  const running = new Set<Promise<void>>();
  const start = (generation: number): boolean => {
    const usablePool = input.pool.filter((t) => !malformed.has(t));
    if (usablePool.length === 0) return false;
    const drawn = drawTasks(usablePool, settings.seed, sampler, 1);
    sampler = drawn.sampler;
    const entry: InFlight = {
      group: groups.length,
      taskId: drawn.tasks[0]!,
      generation,
      scope: new CancellationScope(),
      done: false,
    };
    groups.push(entry);
    const job = entry.scope.run(() => runGroup(entry)).finally(() => running.delete(job));
    running.add(job);
    return true;
  };

  const runGroup = async (entry: InFlight): Promise<void> => {
    progress.planned += input.rollouts;
    progress.inFlight += input.rollouts;
    const attempts = await Promise.all(
      Array.from({ length: input.rollouts }, async (_, trial): Promise<EpisodeAttempt | undefined> => {
        const episodeId = groupEpisodeId(resultSet, entry.group, trial);
        const request = episodeRequest(settings, {
          episodeId,
          taskId: entry.taskId,
          taskSet: input.taskSet,
          trial,
          campaignId,
          step,
          group: entry.group,
        });
        try {
          const attempt = await runEpisode(settings, `g${entry.group}-t${trial}`, request);
          progress.done += 1;
          if (attempt.kind === 'infra') progress.infraFailed += 1;
          audit?.record(`${entry.taskId} t${trial} g${entry.group}`, attempt);
          if (attempt.kind === 'outcome') {
            rows.push({ episodeId, row: attempt.outcome });
            counts.costUsd += attempt.outcome.costUsd;
          }
          return attempt;
        } catch (err) {
          if (isCancellation(err)) return undefined;
          throw err;
        } finally {
          progress.inFlight -= 1;
        }
      }),
    );
    entry.done = true;
    if (attempts.some((a) => a === undefined)) {
      counts.cancelled += 1;
      return;
    }
    const fate = fateOf(entry.group, entry.taskId, attempts as EpisodeAttempt[]);
    let replace: 'replacement' | 'refill' | 'malformed' | undefined;
    if (fate.kind === 'scored') {
      const { scored } = fate;
      counts.scoredEpisodes += scored.outcomes.length;
      counts.rewardSum += scored.outcomes.reduce((sum, o) => sum + o.reward, 0);
      if (scored.informative) counts.informative += 1;
      else counts.zeroVariance += 1;
      if (scored.informative || input.keepZeroVarianceGroups) {
        entry.usable = scored;
        progress.finished = Math.min(input.groups, (progress.finished ?? 0) + 1);
      } else replace = 'replacement';
    } else if (fate.kind === 'infra') {
      counts.infraGroups += 1;
      replace = 'refill';
    } else {
      malformed.add(entry.taskId);
      replace = 'malformed';
    }
    if (rows.length >= 50) flush();
    if (replace && entry.generation < input.maxReplacementRounds && !settled() && start(entry.generation + 1)) {
      if (replace === 'replacement') counts.replacements += 1;
      if (replace === 'refill') counts.refills += 1;
    }
  };

  // Settled: G usable groups with no unfinished group before the last of them in draw order.
  const settled = (): boolean => {
    let usable = 0;
    for (const g of groups) {
      if (!g.done) return false;
      if (g.usable && ++usable === target) return true;
    }
    return false;
  };

  for (let i = 0; i < width; i++) if (!start(0)) break;
  while (running.size > 0) {
    await Promise.race(running);
    if (settled()) {
      for (const g of groups) if (!g.done) g.scope.cancel();
      await Promise.all(running);
      break;
    }
  }
  flush();
  await flushing;
  const used = groups.flatMap((g) => (g.usable ? [g.usable] : [])).slice(0, target);
  return { ...counts, used, malformed: [...malformed].sort(), sampler };
}

import { CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import type { StoredRow } from '../storage/results.js';
import type { ChildProgress, SamplerState } from '../schemas/campaign.js';
import type { EpisodeOutcome } from '../schemas/episode.js';
import type { GrpoStepInput } from '../schemas/pipeline.js';
import { storedRowsSummary, type EpisodeAuditTrail } from './audit.js';
import { episodeRequest, runEpisode, type EpisodeAttempt } from './episodes.js';
import { drawTasks } from './sampling.js';
import { asyncPartOf } from './async-exchange.js';
import { oldestVersionOf } from '../core/policy-versions.js';

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

/**
 * Informative: the update learns from the group. Under GRPO its rewards differ; under the pass@k advantage
 * (update.loss.passAtK k) it also needs k failures, or every k-subset holds a pass and each advantage is 0.
 */
export function fateOf(
  group: number,
  taskId: string,
  attempts: readonly EpisodeAttempt[],
  passAtK: number | null = null,
): GroupFate {
  if (attempts.some((a) => a.kind === 'malformed')) return { kind: 'malformed' };
  const outcomes: EpisodeOutcome[] = [];
  for (const a of attempts) {
    if (a.kind !== 'outcome') return { kind: 'infra' };
    outcomes.push(a.outcome);
  }
  const failures = outcomes.filter((o) => o.reward !== 1).length;
  const informative =
    outcomes.some((o) => o.reward !== outcomes[0]!.reward) && (passAtK === null || failures >= passAtK);
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
  /** Asynchronous steps: groups dropped for a turn older than the window (input.async.minVersion), and by task. */
  staleGroups: number;
  staleByTask: Record<string, number>;
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

type Replacement = 'replacement' | 'refill' | 'stale' | 'malformed';

/** Whether a scored group has a turn sampled by a version older than `minVersion` (an outcome lists its versions). */
export function isStale(outcomes: readonly EpisodeOutcome[], minVersion: number | undefined): boolean {
  if (minVersion === undefined) return false;
  return outcomes.some((o) => (oldestVersionOf(o.policyVersion) ?? minVersion) < minVersion);
}

/** The groups of one step as they stream: what is in flight, what came back, the rows not stored yet. */
class GroupStream {
  readonly counts = {
    informative: 0,
    zeroVariance: 0,
    infraGroups: 0,
    replacements: 0,
    refills: 0,
    cancelled: 0,
    staleGroups: 0,
    scoredEpisodes: 0,
    rewardSum: 0,
    costUsd: 0,
  };
  readonly malformed = new Set<string>();
  readonly staleByTask: Record<string, number> = {};
  readonly groups: InFlight[] = [];
  readonly running = new Set<Promise<void>>();
  private readonly rows: StoredRow[] = [];
  private flushing: Promise<unknown> = Promise.resolve();
  sampler: SamplerState;

  constructor(
    private readonly input: GrpoStepInput,
    private readonly resultSet: string,
    private readonly progress: ChildProgress,
    private readonly audit?: EpisodeAuditTrail,
  ) {
    this.sampler = input.sampler;
  }

  /** Stores the rows gathered so far, after the stores already under way. */
  flush(): void {
    const batch = this.rows.splice(0, this.rows.length);
    if (batch.length === 0) return;
    const { counts, groups } = this;
    const summary = storedRowsSummary(
      batch,
      `groups ${groups.filter((g) => g.done).length} of ${groups.length} back (${counts.informative} informative, ${counts.zeroVariance} zero-variance, ${counts.infraGroups} infra)`,
    );
    const resultSet = this.resultSet;
    this.flushing = this.flushing.then(() =>
      storeResultRows.executeWithOptions({ summary }, [{ resultSet, rows: batch }]),
    );
  }

  /** Draws a task and starts its group in a cancellation scope of its own; false when no usable task is left. */
  start(generation: number): boolean {
    const usablePool = this.input.pool.filter((t) => !this.malformed.has(t));
    if (usablePool.length === 0) return false;
    const drawn = drawTasks(usablePool, this.input.settings.seed, this.sampler, 1);
    this.sampler = drawn.sampler;
    const entry: InFlight = {
      group: this.groups.length,
      taskId: drawn.tasks[0]!,
      generation,
      scope: new CancellationScope(),
      done: false,
    };
    this.groups.push(entry);
    const job = entry.scope.run(() => this.runGroup(entry)).finally(() => this.running.delete(job));
    this.running.add(job);
    return true;
  }

  /** Plays a group's episodes; once all are back, counts its fate and starts its replacement if it needs one. */
  private async runGroup(entry: InFlight): Promise<void> {
    const { input, progress } = this;
    progress.planned += input.rollouts;
    progress.inFlight += input.rollouts;
    const attempts = await Promise.all(
      Array.from({ length: input.rollouts }, (_, trial) => this.playTrial(entry, trial)),
    );
    entry.done = true;
    if (attempts.some((a) => a === undefined)) {
      this.counts.cancelled += 1;
      return;
    }
    const replace = this.judge(entry, attempts as EpisodeAttempt[]);
    if (this.rows.length >= 50) this.flush();
    if (
      replace &&
      entry.generation < input.maxReplacementRounds &&
      !this.settled() &&
      this.start(entry.generation + 1)
    ) {
      if (replace === 'replacement') this.counts.replacements += 1;
      if (replace === 'refill') this.counts.refills += 1;
    }
  }

  /** One episode of a group, its row kept for the store; undefined when the group was cancelled. */
  private async playTrial(entry: InFlight, trial: number): Promise<EpisodeAttempt | undefined> {
    const { input, progress } = this;
    const { settings, step, campaignId } = input;
    const episodeId = groupEpisodeId(this.resultSet, entry.group, trial);
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
      this.audit?.record(`${entry.taskId} t${trial} g${entry.group}`, attempt);
      if (attempt.kind === 'outcome') {
        this.rows.push({ episodeId, row: attempt.outcome });
        this.counts.costUsd += attempt.outcome.costUsd;
      }
      return attempt;
    } catch (err) {
      if (isCancellation(err)) return undefined;
      throw err;
    } finally {
      progress.inFlight -= 1;
    }
  }

  /** Counts a finished group's fate and keeps it when usable; says why it must be replaced, if it must. */
  private judge(entry: InFlight, attempts: EpisodeAttempt[]): Replacement | undefined {
    const { counts, input } = this;
    const fate = fateOf(entry.group, entry.taskId, attempts, input.update.loss.passAtK);
    if (fate.kind === 'infra') {
      counts.infraGroups += 1;
      return 'refill';
    }
    if (fate.kind === 'malformed') {
      this.malformed.add(entry.taskId);
      return 'malformed';
    }
    const { scored } = fate;
    if (isStale(scored.outcomes, asyncPartOf(input)?.minVersion)) {
      counts.staleGroups += 1;
      this.staleByTask[entry.taskId] = (this.staleByTask[entry.taskId] ?? 0) + 1;
      return 'stale';
    }
    counts.scoredEpisodes += scored.outcomes.length;
    counts.rewardSum += scored.outcomes.reduce((sum, o) => sum + o.reward, 0);
    if (scored.informative) counts.informative += 1;
    else counts.zeroVariance += 1;
    if (!scored.informative && !input.keepZeroVarianceGroups) return 'replacement';
    entry.usable = scored;
    this.progress.finished = Math.min(input.groups, (this.progress.finished ?? 0) + 1);
    return undefined;
  }

  /** Settled: G usable groups with no unfinished group before the last of them in draw order. */
  settled(): boolean {
    let usable = 0;
    for (const g of this.groups) {
      if (!g.done) return false;
      if (g.usable && ++usable === this.input.groups) return true;
    }
    return false;
  }

  /** Waits for the groups until the batch is settled (then cancels the surplus) or none runs; stores the last rows. */
  async drain(): Promise<void> {
    while (this.running.size > 0) {
      await Promise.race(this.running);
      if (this.settled()) {
        for (const g of this.groups) if (!g.done) g.scope.cancel();
        await Promise.all(this.running);
        break;
      }
    }
    this.flush();
    await this.flushing;
  }
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
  const target = input.groups;
  const width = target + (input.extraGroupsInFlight ?? 0);
  const stream = new GroupStream(input, resultSet, progress, audit);
  for (let i = 0; i < width; i++) if (!stream.start(0)) break;
  await stream.drain();
  const used = stream.groups.flatMap((g) => (g.usable ? [g.usable] : [])).slice(0, target);
  return {
    ...stream.counts,
    used,
    staleByTask: stream.staleByTask,
    malformed: [...stream.malformed].sort(),
    sampler: stream.sampler,
  };
}

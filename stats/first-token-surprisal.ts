import type { Trajectory } from '../schemas/trajectory.js';
import type { Interval } from './metrics.js';
import { pairedBootstrapIntervals, type BootstrapOptions } from './paired-bootstrap.js';
import { accurateSum } from './sum.js';

/**
 * How many sampled tokens of the first agent turn the entropy estimate reads: 16 covers the opening of a first tool
 * call (its name, the first argument) or the first words of an answer, where a policy commits to an approach.
 */
export const FIRST_TOKENS = 16;

/**
 * The sampled surprisal −log p(token) of the first `k` tokens the policy sampled in its first agent turn: the first
 * sample segment, one completion (fewer when it is shorter; none without a sampled token). A trajectory stores only
 * the sampled tokens' log-probs, not the distributions; for a token drawn from p, E[−log p(token)] is the entropy of
 * p, so the mean surprisal is an unbiased estimate of the mean entropy at those positions, when the server returns
 * the log-probs of the distribution it sampled from (temperature 1, top-p 1: every preset's sampling).
 */
export function firstTurnSurprisal(
  trajectory: Pick<Trajectory, 'segments' | 'rolloutLogprobs'>,
  k = FIRST_TOKENS,
): number[] {
  const first = trajectory.segments.find((s) => s.kind === 'sample');
  if (!first) return [];
  return trajectory.rolloutLogprobs.slice(first.start, Math.min(first.end, first.start + k)).map((lp) => 0 - lp);
}

/** Base against trained on a set of tasks: the mean over tasks of each task's mean first-token surprisal. */
export interface SurprisalComparison {
  /** Tasks with at least one measured episode on both sides; the others are left out. */
  tasks: number;
  episodes: { base: number; trained: number };
  base: number;
  trained: number;
  delta: number;
  /** 95% paired-bootstrap interval of the delta, tasks resampled. */
  interval: Interval;
}

/** Each episode's surprisals (one list per episode), by task. */
export type SurprisalsByTask = ReadonlyMap<string, ReadonlyArray<readonly number[]>>;

/**
 * Every task weighs the same, as in every other metric: a task's value is the mean over its episodes' tokens; the
 * delta's interval resamples tasks (stats/paired-bootstrap.ts). Null when no task was measured on both sides.
 */
export function compareSurprisal(
  taskIds: readonly string[],
  base: SurprisalsByTask,
  trained: SurprisalsByTask,
  bootstrap: BootstrapOptions,
): SurprisalComparison | null {
  const taskMean = (episodes: ReadonlyArray<readonly number[]>) => {
    const tokens = episodes.flat();
    return tokens.length ? accurateSum(tokens) / tokens.length : null;
  };
  const measured = taskIds.flatMap((id) => {
    const b = taskMean(base.get(id) ?? []);
    const t = taskMean(trained.get(id) ?? []);
    if (b === null || t === null) return [];
    const episodes = (side: SurprisalsByTask) => (side.get(id) ?? []).filter((e) => e.length > 0).length;
    return [{ b, t, episodes: { base: episodes(base), trained: episodes(trained) } }];
  });
  if (measured.length === 0) return null;
  const mean = (values: number[]) => accurateSum(values) / values.length;
  const baseMean = mean(measured.map((m) => m.b));
  const trainedMean = mean(measured.map((m) => m.t));
  const [interval] = pairedBootstrapIntervals([measured.map((m) => m.t - m.b)], bootstrap);
  return {
    tasks: measured.length,
    episodes: {
      base: accurateSum(measured.map((m) => m.episodes.base)),
      trained: accurateSum(measured.map((m) => m.episodes.trained)),
    },
    base: baseMean,
    trained: trainedMean,
    delta: trainedMean - baseMean,
    interval: interval!,
  };
}

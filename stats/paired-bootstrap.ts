import { seededRandom } from './random.js';

/** Linear-interpolation quantile (type 7) of sorted values. */
export function quantileOfSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('quantile of no values');
  const position = (sorted.length - 1) * q;
  const lo = Math.floor(position);
  const hi = Math.ceil(position);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (position - lo);
}

export interface BootstrapOptions {
  resamples: number;
  seed: number;
  level: number;
}

/**
 * Percentile intervals for the mean of each row of `differences` (one row per metric, one column per task):
 * tasks are resampled with replacement, the same draw for every metric, so correlated metrics stay paired.
 */
export function pairedBootstrapIntervals(
  differences: ReadonlyArray<readonly number[]>,
  options: BootstrapOptions,
): Array<[number, number]> {
  const tasks = differences[0]?.length ?? 0;
  if (tasks === 0) return differences.map(() => [0, 0]);
  const random = seededRandom(options.seed);
  const means = differences.map(() => new Float64Array(options.resamples));
  for (let b = 0; b < options.resamples; b++) {
    const sums = new Float64Array(differences.length);
    for (let i = 0; i < tasks; i++) {
      const pick = Math.floor(random() * tasks);
      for (let m = 0; m < differences.length; m++) sums[m]! += differences[m]![pick]!;
    }
    for (let m = 0; m < differences.length; m++) means[m]![b] = sums[m]! / tasks;
  }
  const tail = (1 - options.level) / 2;
  return means.map((values) => {
    const sorted = Array.from(values).sort((a, b) => a - b);
    return [quantileOfSorted(sorted, tail), quantileOfSorted(sorted, 1 - tail)];
  });
}

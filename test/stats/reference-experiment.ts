/*
 * A SYNTHETIC result set built to match the reference experiment's published aggregates (507 tasks × 20 trials,
 * before and after training). Only the published counts and costs are real; which task got which count, the domains
 * and the per-episode costs are made up here, deterministically.
 */
import type { ResultRow } from '../../schemas/results.js';
import { seededRandom, shuffled } from '../../stats/random.js';
import { row } from './rows.js';

export const TASKS = 507;
export const TRIALS = 20;
export const DOMAINS = ['alpha', 'beta', 'gamma'];

export interface PublishedAggregates {
  successes: number;
  tasksAt20of20: number;
  tasksSolvedAtLeastOnce: number;
  totalCostUsd: number;
}

export const before: PublishedAggregates = {
  successes: 5242,
  tasksAt20of20: 38,
  tasksSolvedAtLeastOnce: 453,
  totalCostUsd: 925.8,
};
export const after: PublishedAggregates = {
  successes: 6163,
  tasksAt20of20: 107,
  tasksSolvedAtLeastOnce: 446,
  totalCostUsd: 855.58,
};

/** Success counts in ascending order: the zeros, then partial counts spread over 1..19, then the 20/20 tasks. */
export function countsMatching(target: PublishedAggregates): number[] {
  const zeros = TASKS - target.tasksSolvedAtLeastOnce;
  const fulls = target.tasksAt20of20;
  const middle = TASKS - zeros - fulls;
  const values = Array.from({ length: middle }, (_, i) => 1 + Math.floor((18.999 * (i + 0.5)) / middle));
  let missing = target.successes - fulls * TRIALS - values.reduce((s, v) => s + v, 0);
  for (let i = 0; missing !== 0; i = (i + 1) % middle) {
    const step = Math.sign(missing);
    const next = values[i]! + step;
    if (next >= 1 && next <= TRIALS - 1) {
      values[i] = next;
      missing -= step;
    }
  }
  values.sort((a, b) => a - b);
  return [...Array(zeros).fill(0), ...values, ...Array(fulls).fill(TRIALS)];
}

function rowsFor(
  counts: readonly number[],
  taskOrder: readonly number[],
  totalCostUsd: number,
  seed: number,
): ResultRow[] {
  const random = seededRandom(seed);
  const rows: ResultRow[] = [];
  const totalCents = Math.round(totalCostUsd * 100);
  const episodes = TASKS * TRIALS;
  const baseCents = Math.floor(totalCents / episodes);
  let extraCents = totalCents - baseCents * episodes; // the first `extraCents` episodes cost one cent more
  counts.forEach((c, rank) => {
    const task = taskOrder[rank]!;
    const successTrials = new Set(shuffled([...Array(TRIALS).keys()], random).slice(0, c));
    for (let trial = 0; trial < TRIALS; trial++) {
      const cents = baseCents + (extraCents-- > 0 ? 1 : 0);
      rows.push(
        row(`task-${String(task).padStart(3, '0')}`, trial, successTrials.has(trial) ? 1 : 0, {
          domain: DOMAINS[task % DOMAINS.length]!,
          tags: [task % 2 ? 'odd' : 'even'],
          costUsd: cents / 100,
        }),
      );
    }
  });
  return rows;
}

/**
 * Before and after rows. Tasks are paired by rank (a task's after-count is the count of the same rank), with three
 * swaps so that some tasks also lose their 20/20.
 */
export function referenceResultSets(): { before: ResultRow[]; after: ResultRow[] } {
  const taskOrder = shuffled([...Array(TASKS).keys()], seededRandom(20260507));
  const beforeCounts = countsMatching(before);
  const afterCounts = countsMatching(after);
  for (const [fullRank, partialRank] of [
    [TASKS - 1, 150],
    [TASKS - 2, 250],
    [TASKS - 3, 350],
  ] as const) {
    [afterCounts[fullRank], afterCounts[partialRank]] = [afterCounts[partialRank]!, afterCounts[fullRank]!];
  }
  return {
    before: rowsFor(beforeCounts, taskOrder, before.totalCostUsd, 1),
    after: rowsFor(afterCounts, taskOrder, after.totalCostUsd, 2),
  };
}

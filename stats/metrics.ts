import { UserError } from '../core/errors.js';
import type { PriceTable, ResultRow } from '../schemas/results.js';
import { summarizeCost, type CostSummary } from './cost.js';
import { passAtK, passHatKPlugin, passHatKUnbiased } from './estimators.js';
import { jeffreysExpectedPowerOfP, jeffreysInterval } from './jeffreys.js';
import { groupByTask, type TaskOutcomes } from './result-set.js';
import { accurateSum } from './sum.js';

export type Interval = [number, number];

/** How many trials with an outcome the tasks have; `equal` false means unequal n, reported, never hidden. */
export interface TrialsSummary {
  min: number;
  max: number;
  equal: boolean;
  /** Number of tasks per trial count, e.g. {"20": 505, "19": 2}. */
  counts: Record<string, number>;
}

export interface TaskMetrics {
  taskId: string;
  domain: string;
  tags: string[];
  family: string;
  n: number;
  c: number;
  rate: number;
  interval: Interval;
  passAtK: number;
  passHatK: { unbiased: number; plugin: number };
  posteriorPassHatK: number;
  /** The first k trials (by trial number) all succeeded; with k = n that is c = n. */
  observedKK: boolean;
  /** At least one success in the n trials. */
  covered: boolean;
  errors: { infra: number; grader: number };
}

/** Metrics of a set of tasks. Fractions are in [0,1]; every aggregate weighs each task equally. */
export interface SetMetrics {
  k: number;
  tasks: number;
  attempts: number;
  successes: number;
  trials: TrialsSummary;
  pass1: number;
  passAtK: number;
  observedKK: { count: number; fraction: number };
  coverage: { count: number; fraction: number };
  passHatK: { unbiased: number; plugin: number };
  posteriorPassHatK: number;
  intervals: { pass1: Interval; observedKK: Interval; coverage: Interval };
  costUsd: CostSummary;
}

export interface Excluded {
  /** Rows with error set: not counted as successes or failures. */
  rows: number;
  infra: number;
  grader: number;
  /** What the excluded rows cost (already part of costUsd.total). */
  costUsd: number;
  /** Tasks with no trial that has an outcome: left out of every rate. */
  tasksWithoutOutcome: string[];
  byTask: Record<string, { infra: number; grader: number }>;
}

/** In-domain: the campaign trained on the task's domain; out-of-domain: it never did. */
export type Distribution = 'in-domain' | 'out-of-domain';

export function distributionOf(domain: string, trainingDomains: readonly string[]): Distribution {
  return trainingDomains.includes(domain) ? 'in-domain' : 'out-of-domain';
}

export interface MetricsReport extends SetMetrics {
  byDomain: Record<string, SetMetrics>;
  /** Present when the training domains are known (MetricsOptions.trainingDomains). */
  byDistribution?: Partial<Record<Distribution, SetMetrics>>;
  trainingDomains?: string[];
  byTag: Record<string, SetMetrics>;
  excluded: Excluded;
  perTask: TaskMetrics[];
}

export interface MetricsOptions {
  /** Default: the smallest n among tasks with an outcome. */
  k?: number;
  prices?: PriceTable;
  source?: string;
  /** The domains training used: the report then splits every metric into in-domain and out-of-domain. */
  trainingDomains?: readonly string[];
}

const mean = (values: readonly number[]) => accurateSum(values) / values.length;

export function summarizeTrials(tasks: readonly { n: number }[]): TrialsSummary {
  const counts: Record<string, number> = {};
  for (const t of tasks) counts[t.n] = (counts[t.n] ?? 0) + 1;
  const ns = tasks.map((t) => t.n);
  const min = Math.min(...ns);
  const max = Math.max(...ns);
  return { min, max, equal: min === max, counts };
}

/** Check k against every task; k larger than a task's n is a user error naming the task. */
export function resolveK(tasks: readonly TaskOutcomes[], k: number | undefined, source: string): number {
  const measured = tasks.filter((t) => t.n > 0);
  if (measured.length === 0) throw new UserError(`${source}: no episode has an outcome (every row has an error)`);
  const resolved = k ?? Math.min(...measured.map((t) => t.n));
  if (!Number.isInteger(resolved) || resolved < 1)
    throw new UserError(`${source}: k must be a positive integer, got ${resolved}`);
  const short = measured.filter((t) => t.n < resolved);
  if (short.length > 0) {
    const named = short
      .slice(0, 5)
      .map((t) => `${JSON.stringify(t.taskId)} (n=${t.n})`)
      .join(', ');
    throw new UserError(
      `${source}: k=${resolved} exceeds the trials with an outcome of task ${named}${short.length > 5 ? ` and ${short.length - 5} more` : ''}`,
    );
  }
  return resolved;
}

export function taskMetrics(task: TaskOutcomes, k: number): TaskMetrics {
  const { n, c } = task;
  return {
    taskId: task.taskId,
    domain: task.domain,
    tags: task.tags,
    family: task.family,
    n,
    c,
    rate: c / n,
    interval: jeffreysInterval(c, n),
    passAtK: passAtK(n, c, k),
    passHatK: { unbiased: passHatKUnbiased(n, c, k), plugin: passHatKPlugin(n, c, k) },
    posteriorPassHatK: jeffreysExpectedPowerOfP(c, n, k),
    observedKK: task.outcomes.slice(0, k).every((r) => r === 1),
    covered: c > 0,
    errors: task.errors,
  };
}

/**
 * Metrics of a group of tasks (all have n >= k). `rows` are every row of the group, errored ones included, for cost.
 * The pass@1 interval is the Jeffreys interval for pass1·N successes in N attempts: for equal n it is exactly the
 * pooled-attempts interval. It takes the tasks as fixed and the attempts as random.
 */
export function summarizeTasks(
  perTask: readonly TaskMetrics[],
  rows: readonly ResultRow[],
  k: number,
  prices?: PriceTable,
): SetMetrics {
  const attempts = perTask.reduce((s, t) => s + t.n, 0);
  const successes = perTask.reduce((s, t) => s + t.c, 0);
  const kk = perTask.filter((t) => t.observedKK).length;
  const covered = perTask.filter((t) => t.covered).length;
  const pass1 = mean(perTask.map((t) => t.rate));
  const tasks = perTask.length;
  return {
    k,
    tasks,
    attempts,
    successes,
    trials: summarizeTrials(perTask),
    pass1,
    passAtK: mean(perTask.map((t) => t.passAtK)),
    observedKK: { count: kk, fraction: kk / tasks },
    coverage: { count: covered, fraction: covered / tasks },
    passHatK: {
      unbiased: mean(perTask.map((t) => t.passHatK.unbiased)),
      plugin: mean(perTask.map((t) => t.passHatK.plugin)),
    },
    posteriorPassHatK: mean(perTask.map((t) => t.posteriorPassHatK)),
    intervals: {
      pass1: jeffreysInterval(pass1 * attempts, attempts),
      observedKK: jeffreysInterval(kk, tasks),
      coverage: jeffreysInterval(covered, tasks),
    },
    costUsd: summarizeCost(rows, successes, kk, prices),
  };
}

function groupBy<T>(items: readonly T[], keys: (item: T) => string[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    for (const key of keys(item)) {
      const list = groups.get(key);
      if (list) list.push(item);
      else groups.set(key, [item]);
    }
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function summarizeGroups(
  tasks: readonly TaskOutcomes[],
  keys: (t: TaskOutcomes) => string[],
  k: number,
  prices?: PriceTable,
): Record<string, SetMetrics> {
  const out: Record<string, SetMetrics> = {};
  for (const [key, group] of groupBy(tasks, keys)) {
    const measured = group.filter((t) => t.n > 0);
    if (measured.length === 0) continue; // such a group shows up under excluded.tasksWithoutOutcome
    out[key] = summarizeTasks(
      measured.map((t) => taskMetrics(t, k)),
      group.flatMap((t) => t.rows),
      k,
      prices,
    );
  }
  return out;
}

/** Every metric of a result set, overall, per domain and per tag. */
export function computeMetricsOfTasks(tasks: readonly TaskOutcomes[], options: MetricsOptions = {}): MetricsReport {
  const source = options.source ?? 'results';
  const k = resolveK(tasks, options.k, source);
  const measured = tasks.filter((t) => t.n > 0);
  const perTask = measured.map((t) => taskMetrics(t, k));
  const allRows = tasks.flatMap((t) => t.rows);
  const errored = allRows.filter((r) => r.error !== null);
  const byTask: Record<string, { infra: number; grader: number }> = {};
  for (const t of tasks) if (t.errors.infra + t.errors.grader > 0) byTask[t.taskId] = t.errors;
  return {
    ...summarizeTasks(perTask, allRows, k, options.prices),
    byDomain: summarizeGroups(tasks, (t) => [t.domain], k, options.prices),
    ...(options.trainingDomains
      ? {
          byDistribution: summarizeGroups(
            tasks,
            (t) => [distributionOf(t.domain, options.trainingDomains!)],
            k,
            options.prices,
          ),
          trainingDomains: [...options.trainingDomains].sort(),
        }
      : {}),
    byTag: summarizeGroups(tasks, (t) => t.tags, k, options.prices),
    excluded: {
      rows: errored.length,
      infra: errored.filter((r) => r.error === 'infra').length,
      grader: errored.filter((r) => r.error === 'grader').length,
      costUsd: summarizeCost(errored, 0, 0, options.prices).total,
      tasksWithoutOutcome: tasks.filter((t) => t.n === 0).map((t) => t.taskId),
      byTask,
    },
    perTask,
  };
}

export function computeMetrics(rows: readonly ResultRow[], options: MetricsOptions = {}): MetricsReport {
  return computeMetricsOfTasks(groupByTask(rows, options.source), options);
}

import { UserError } from '../core/errors.js';
import type { PriceTable, ResultRow } from '../schemas/results.js';
import type { CostSummary } from './cost.js';
import { coverageChanges, type CoverageChanges } from './coverage.js';
import { points } from './format.js';
import {
  distributionOf,
  resolveK,
  summarizeTasks,
  taskMetrics,
  type Distribution,
  type Interval,
  type SetMetrics,
  type TaskMetrics,
} from './metrics.js';
import { pairedBootstrapIntervals } from './paired-bootstrap.js';
import { subSeed } from './random.js';
import { groupByTask, type TaskOutcomes } from './result-set.js';

export const comparedMetrics = [
  'pass1',
  'passAtK',
  'observedKK',
  'coverage',
  'passHatKUnbiased',
  'passHatKPlugin',
  'posteriorPassHatK',
] as const;
export type ComparedMetric = (typeof comparedMetrics)[number];

function perTaskValue(t: TaskMetrics, metric: ComparedMetric): number {
  switch (metric) {
    case 'pass1':
      return t.rate;
    case 'passAtK':
      return t.passAtK;
    case 'observedKK':
      return t.observedKK ? 1 : 0;
    case 'coverage':
      return t.covered ? 1 : 0;
    case 'passHatKUnbiased':
      return t.passHatK.unbiased;
    case 'passHatKPlugin':
      return t.passHatK.plugin;
    case 'posteriorPassHatK':
      return t.posteriorPassHatK;
  }
}

export interface MetricDelta {
  base: number;
  trained: number;
  delta: number;
  /** 95% paired-bootstrap interval of the delta. */
  interval: Interval;
}

export interface DomainComparison {
  tasks: number;
  metrics: Record<ComparedMetric, MetricDelta>;
  counts: { observedKK: { base: number; trained: number }; coverage: { base: number; trained: number } };
  costUsd: { base: CostSummary; trained: CostSummary };
}

export type SharpeningVerdict = 'sharpening' | 'improvement' | 'regression' | 'broadening' | 'unchanged';

export interface Sharpening {
  verdict: SharpeningVerdict;
  /** Change in the fraction of tasks passed k/k. */
  reliabilityDelta: number;
  /** Change in the fraction of tasks with at least one success. */
  coverageDelta: number;
  /** The intervals exclude 0. */
  reliabilityChangeSignificant: boolean;
  coverageChangeSignificant: boolean;
  summary: string;
}

export interface Comparison {
  k: number;
  tasks: { paired: number; onlyBase: string[]; onlyTrained: string[] };
  intervalMethod: { name: 'paired-bootstrap-over-tasks'; resamples: number; seed: number; level: number };
  metrics: Record<ComparedMetric, MetricDelta>;
  counts: { observedKK: { base: number; trained: number }; coverage: { base: number; trained: number } };
  costUsd: { base: CostSummary; trained: CostSummary; delta: number };
  byDomain: Record<string, DomainComparison>;
  /** In-domain against out-of-domain, when the training domains are known (CompareOptions.trainingDomains). */
  byDistribution?: Partial<Record<Distribution, DomainComparison>>;
  trainingDomains?: string[];
  flips: { kk: { gained: string[]; lost: string[] }; coverage: { gained: string[]; lost: string[] } };
  /** The coverage flips with their domain, family and counts, and coverage by domain and by task family. */
  coverage: CoverageChanges;
  sharpening: Sharpening;
  base: SetMetrics;
  trained: SetMetrics;
}

export interface CompareOptions {
  k?: number;
  seed?: number;
  resamples?: number;
  prices?: PriceTable;
  sources?: [string, string];
  trainingDomains?: readonly string[];
}

function compareMetrics(
  base: readonly TaskMetrics[],
  trained: readonly TaskMetrics[],
  resamples: number,
  seed: number,
): Record<ComparedMetric, MetricDelta> {
  const differences = comparedMetrics.map((m) => base.map((b, i) => perTaskValue(trained[i]!, m) - perTaskValue(b, m)));
  const intervals = pairedBootstrapIntervals(differences, { resamples, seed, level: 0.95 });
  const out = {} as Record<ComparedMetric, MetricDelta>;
  comparedMetrics.forEach((m, j) => {
    const baseValue = base.reduce((s, t) => s + perTaskValue(t, m), 0) / base.length;
    const trainedValue = trained.reduce((s, t) => s + perTaskValue(t, m), 0) / trained.length;
    out[m] = { base: baseValue, trained: trainedValue, delta: trainedValue - baseValue, interval: intervals[j]! };
  });
  return out;
}

function countFlags(tasks: readonly TaskMetrics[]) {
  return { observedKK: tasks.filter((t) => t.observedKK).length, coverage: tasks.filter((t) => t.covered).length };
}

function describeSharpening(
  metrics: Record<ComparedMetric, MetricDelta>,
  counts: Comparison['counts'],
  k: number,
): Sharpening {
  const reliability = metrics.observedKK;
  const coverage = metrics.coverage;
  const sign = (x: number) => (Math.abs(x) < 1e-12 ? 0 : Math.sign(x));
  const r = sign(reliability.delta);
  const c = sign(coverage.delta);
  const verdict: SharpeningVerdict =
    r > 0 && c < 0
      ? 'sharpening'
      : r < 0 && c > 0
        ? 'broadening'
        : r >= 0 && c >= 0
          ? r === 0 && c === 0
            ? 'unchanged'
            : 'improvement'
          : 'regression';
  const excludesZero = (i: Interval) => i[0] > 0 || i[1] < 0;
  const reliabilityText = `tasks passed ${k}/${k} went from ${counts.observedKK.base} to ${counts.observedKK.trained} (${points(reliability.delta)}, 95% CI ${points(reliability.interval[0])} to ${points(reliability.interval[1])})`;
  const coverageText = `tasks solved at least once went from ${counts.coverage.base} to ${counts.coverage.trained} (${points(coverage.delta)}, 95% CI ${points(coverage.interval[0])} to ${points(coverage.interval[1])})`;
  const meaning: Record<SharpeningVerdict, string> = {
    sharpening:
      'reliability rose while coverage fell: the policy became more dependable on tasks it could already solve, not better at new ones',
    improvement: 'reliability and coverage did not fall and at least one rose',
    regression: 'reliability or coverage fell and neither rose',
    broadening: 'coverage rose while reliability fell: the policy solves more tasks sometimes, fewer every time',
    unchanged: 'reliability and coverage are unchanged',
  };
  return {
    verdict,
    reliabilityDelta: reliability.delta,
    coverageDelta: coverage.delta,
    reliabilityChangeSignificant: excludesZero(reliability.interval),
    coverageChangeSignificant: excludesZero(coverage.interval),
    summary: `${verdict}: ${reliabilityText}; ${coverageText}. ${meaning[verdict]}.`,
  };
}

/** Base vs trained on the tasks both sets measured, with paired-bootstrap intervals (tasks resampled, fixed seed). */
export function compareTaskSets(
  baseTasks: readonly TaskOutcomes[],
  trainedTasks: readonly TaskOutcomes[],
  options: CompareOptions = {},
): Comparison {
  const [baseSource, trainedSource] = options.sources ?? ['base', 'trained'];
  const seed = options.seed ?? 1;
  const resamples = options.resamples ?? 2000;
  const baseMeasured = new Map(baseTasks.filter((t) => t.n > 0).map((t) => [t.taskId, t]));
  const trainedMeasured = new Map(trainedTasks.filter((t) => t.n > 0).map((t) => [t.taskId, t]));
  const pairedIds = [...baseMeasured.keys()].filter((id) => trainedMeasured.has(id));
  if (pairedIds.length === 0)
    throw new UserError(`${baseSource} and ${trainedSource} have no task with an outcome in common`);
  const pairedBase = pairedIds.map((id) => baseMeasured.get(id)!);
  const pairedTrained = pairedIds.map((id) => trainedMeasured.get(id)!);
  const k =
    options.k ??
    Math.min(resolveK(pairedBase, undefined, baseSource), resolveK(pairedTrained, undefined, trainedSource));
  resolveK(pairedBase, k, baseSource);
  resolveK(pairedTrained, k, trainedSource);
  const base = pairedBase.map((t) => taskMetrics(t, k));
  const trained = pairedTrained.map((t) => taskMetrics(t, k));

  const metrics = compareMetrics(base, trained, resamples, seed);
  const counts = {
    observedKK: { base: countFlags(base).observedKK, trained: countFlags(trained).observedKK },
    coverage: { base: countFlags(base).coverage, trained: countFlags(trained).coverage },
  };

  // The same comparison within each group of tasks (a domain, in- or out-of-domain), with its own bootstrap seed.
  const compareGroups = (keyOf: (t: TaskMetrics) => string): Record<string, DomainComparison> => {
    const out: Record<string, DomainComparison> = {};
    for (const key of [...new Set(base.map(keyOf))].sort()) {
      const idx = base.map((t, i) => (keyOf(t) === key ? i : -1)).filter((i) => i >= 0);
      const b = idx.map((i) => base[i]!);
      const t = idx.map((i) => trained[i]!);
      const cost = (tasks: readonly TaskOutcomes[], metrics: readonly TaskMetrics[]) =>
        summarizeTasks(
          metrics,
          idx.flatMap((i) => tasks[i]!.rows),
          k,
          options.prices,
        ).costUsd;
      out[key] = {
        tasks: idx.length,
        metrics: compareMetrics(b, t, resamples, subSeed(seed, key)),
        counts: {
          observedKK: { base: countFlags(b).observedKK, trained: countFlags(t).observedKK },
          coverage: { base: countFlags(b).coverage, trained: countFlags(t).coverage },
        },
        costUsd: { base: cost(pairedBase, b), trained: cost(pairedTrained, t) },
      };
    }
    return out;
  };
  const byDomain = compareGroups((t) => t.domain);
  const trainingDomains = options.trainingDomains;

  const flipped = (from: (t: TaskMetrics) => boolean) => ({
    gained: base.filter((b, i) => !from(b) && from(trained[i]!)).map((b) => b.taskId),
    lost: base.filter((b, i) => from(b) && !from(trained[i]!)).map((b) => b.taskId),
  });

  const baseSummary = summarizeTasks(
    base,
    pairedBase.flatMap((t) => t.rows),
    k,
    options.prices,
  );
  const coverage = coverageChanges(base, trained);
  const trainedSummary = summarizeTasks(
    trained,
    pairedTrained.flatMap((t) => t.rows),
    k,
    options.prices,
  );
  return {
    k,
    tasks: {
      paired: pairedIds.length,
      onlyBase: [...baseMeasured.keys()].filter((id) => !trainedMeasured.has(id)),
      onlyTrained: [...trainedMeasured.keys()].filter((id) => !baseMeasured.has(id)),
    },
    intervalMethod: { name: 'paired-bootstrap-over-tasks', resamples, seed, level: 0.95 },
    metrics,
    counts,
    costUsd: {
      base: baseSummary.costUsd,
      trained: trainedSummary.costUsd,
      delta: trainedSummary.costUsd.total - baseSummary.costUsd.total,
    },
    byDomain,
    ...(trainingDomains
      ? {
          byDistribution: compareGroups((t) => distributionOf(t.domain, trainingDomains)),
          trainingDomains: [...trainingDomains].sort(),
        }
      : {}),
    flips: {
      kk: flipped((t) => t.observedKK),
      coverage: { gained: coverage.gained.map((f) => f.taskId), lost: coverage.lost.map((f) => f.taskId) },
    },
    coverage,
    sharpening: describeSharpening(metrics, counts, k),
    base: baseSummary,
    trained: trainedSummary,
  };
}

export function compareResults(
  baseRows: readonly ResultRow[],
  trainedRows: readonly ResultRow[],
  options: CompareOptions = {},
): Comparison {
  const [baseSource, trainedSource] = options.sources ?? ['base', 'trained'];
  return compareTaskSets(groupByTask(baseRows, baseSource), groupByTask(trainedRows, trainedSource), options);
}

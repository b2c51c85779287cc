import { binLabel } from '../bins.js';
import { droppedByGate } from '../selection.js';
import type { Comparison, DomainComparison, MetricDelta } from '../compare.js';
import { percent, percentInterval, points, pointsInterval, usd } from '../format.js';
import type { MetricsReport, SetMetrics } from '../metrics.js';
import type { PoolChange, PoolVersion } from '../../schemas/campaign.js';
import type { FrozenPool } from '../../schemas/results.js';
import type { Table } from './table.js';

/** The tables of `finalstate metrics` and the report, laid out like the reference experiment's. */

const withCount = (fraction: number, count: number) => `${percent(fraction)} (${count})`;

export function metricsOverviewTable(m: SetMetrics): Table {
  const k = m.k;
  return {
    id: 'overview',
    title: `Overall: ${m.tasks} tasks, ${m.attempts} attempts, k = ${k}`,
    headers: ['Metric', 'Value', '95% interval'],
    rows: [
      ['pass@1', percent(m.pass1), percentInterval(m.intervals.pass1)],
      [`pass@${k}`, percent(m.passAtK), ''],
      [
        `tasks passed ${k}/${k}`,
        withCount(m.observedKK.fraction, m.observedKK.count),
        percentInterval(m.intervals.observedKK),
      ],
      ['solved at least once', withCount(m.coverage.fraction, m.coverage.count), percentInterval(m.intervals.coverage)],
      [`pass^${k} (unbiased)`, percent(m.passHatK.unbiased), ''],
      [`pass^${k} (plug-in)`, percent(m.passHatK.plugin), ''],
      [`Jeffreys E[p^${k}]`, percent(m.posteriorPassHatK), ''],
      ['total cost', usd(m.costUsd.total), ''],
      ['cost per success', usd(m.costUsd.perSuccess, 3), ''],
      ['cost per dependable task', usd(m.costUsd.perDependableTask), ''],
    ],
    note: m.trials.equal
      ? undefined
      : `Unequal trials per task: n from ${m.trials.min} to ${m.trials.max} (${Object.entries(m.trials.counts)
          .map(([n, c]) => `${c} tasks with n=${n}`)
          .join(', ')}); every task weighs the same.`,
  };
}

export function metricsBreakdownTable(
  id: string,
  title: string,
  column: string,
  groups: Record<string, SetMetrics>,
  k: number,
): Table {
  return {
    id,
    title,
    headers: [column, 'Tasks', 'pass@1', `pass@${k}`, `${k}/${k}`, 'cost', 'per dependable task'],
    rows: Object.entries(groups).map(([name, g]) => [
      name,
      String(g.tasks),
      percent(g.pass1),
      percent(g.passAtK),
      withCount(g.observedKK.fraction, g.observedKK.count),
      usd(g.costUsd.total),
      usd(g.costUsd.perDependableTask),
    ]),
  };
}

export function metricsTables(m: MetricsReport): Table[] {
  const tables = [metricsOverviewTable(m), metricsBreakdownTable('by-domain', 'By domain', 'Domain', m.byDomain, m.k)];
  if (m.byDistribution)
    tables.push(
      metricsBreakdownTable(
        'by-distribution',
        `In-domain vs out-of-domain (trained on ${m.trainingDomains!.join(', ')})`,
        'Tasks',
        m.byDistribution,
        m.k,
      ),
    );
  if (Object.keys(m.byTag).length > 0) tables.push(metricsBreakdownTable('by-tag', 'By tag', 'Tag', m.byTag, m.k));
  return tables;
}

const deltaRow = (label: string, d: MetricDelta, base = percent(d.base), trained = percent(d.trained)) => [
  label,
  base,
  trained,
  points(d.delta),
  pointsInterval(d.interval),
];

export function comparisonTable(c: Comparison): Table {
  const k = c.k;
  const { base, trained } = c.costUsd;
  const costDelta = (a: number | null, b: number | null, digits: number) =>
    a === null || b === null ? '—' : `${b - a >= 0 ? '+' : '−'}${Math.abs(b - a).toFixed(digits)} $`;
  return {
    id: 'comparison',
    title: `Base vs trained: ${c.tasks.paired} tasks, k = ${k}`,
    headers: ['Metric', 'Base', 'Trained', 'Δ', '95% interval of Δ'],
    rows: [
      deltaRow('pass@1', c.metrics.pass1),
      deltaRow(`pass@${k}`, c.metrics.passAtK),
      deltaRow(
        `tasks passed ${k}/${k}`,
        c.metrics.observedKK,
        withCount(c.metrics.observedKK.base, c.counts.observedKK.base),
        withCount(c.metrics.observedKK.trained, c.counts.observedKK.trained),
      ),
      deltaRow(
        'solved at least once',
        c.metrics.coverage,
        withCount(c.metrics.coverage.base, c.counts.coverage.base),
        withCount(c.metrics.coverage.trained, c.counts.coverage.trained),
      ),
      deltaRow(`pass^${k} (unbiased)`, c.metrics.passHatKUnbiased),
      deltaRow(`Jeffreys E[p^${k}]`, c.metrics.posteriorPassHatK),
      ['total cost', usd(base.total), usd(trained.total), costDelta(base.total, trained.total, 2), ''],
      [
        'cost per success',
        usd(base.perSuccess, 3),
        usd(trained.perSuccess, 3),
        costDelta(base.perSuccess, trained.perSuccess, 3),
        '',
      ],
      [
        'cost per dependable task',
        usd(base.perDependableTask),
        usd(trained.perDependableTask),
        costDelta(base.perDependableTask, trained.perDependableTask, 2),
        '',
      ],
    ],
    note: `Intervals: paired bootstrap over tasks, ${c.intervalMethod.resamples} resamples, seed ${c.intervalMethod.seed}.`,
  };
}

function comparisonGroupTable(
  id: string,
  title: string,
  label: string,
  groups: Partial<Record<string, DomainComparison>>,
  k: number,
): Table {
  return {
    id,
    title,
    headers: [
      label,
      'Tasks',
      'pass@1 base',
      'pass@1 trained',
      'Δ pass@1 [95%]',
      `pass@${k} base → trained`,
      `${k}/${k} base`,
      `${k}/${k} trained`,
      `Δ ${k}/${k} [95%]`,
      'cost per dependable task',
    ],
    rows: Object.entries(groups).map(([name, d]) => [
      name,
      String(d!.tasks),
      percent(d!.metrics.pass1.base),
      percent(d!.metrics.pass1.trained),
      `${points(d!.metrics.pass1.delta)} ${pointsInterval(d!.metrics.pass1.interval)}`,
      `${percent(d!.metrics.passAtK.base)} → ${percent(d!.metrics.passAtK.trained)}`,
      withCount(d!.metrics.observedKK.base, d!.counts.observedKK.base),
      withCount(d!.metrics.observedKK.trained, d!.counts.observedKK.trained),
      `${points(d!.metrics.observedKK.delta)} ${pointsInterval(d!.metrics.observedKK.interval)}`,
      `${usd(d!.costUsd.base.perDependableTask)} → ${usd(d!.costUsd.trained.perDependableTask)}`,
    ]),
  };
}

/** Base vs trained by domain, and in-domain against out-of-domain when the training domains are known. */
export function comparisonBreakdownTables(c: Comparison): Table[] {
  const tables = [comparisonGroupTable('comparison-by-domain', 'Base vs trained by domain', 'Domain', c.byDomain, c.k)];
  if (c.byDistribution) {
    const title = `Base vs trained, in-domain (trained on ${c.trainingDomains!.join(', ')}) and out-of-domain`;
    tables.push(comparisonGroupTable('comparison-by-distribution', title, 'Tasks', c.byDistribution, c.k));
  }
  return tables;
}

export function flipsTable(c: Comparison, shown = 8): Table {
  const list = (ids: string[]) =>
    ids.length <= shown ? ids.join(', ') : `${ids.slice(0, shown).join(', ')} … (+${ids.length - shown})`;
  return {
    id: 'flips',
    title: 'Per-task flips',
    headers: ['Flip', 'Tasks', 'Which'],
    leftColumns: [0, 2],
    rows: [
      [`gained ${c.k}/${c.k}`, String(c.flips.kk.gained.length), list(c.flips.kk.gained)],
      [`lost ${c.k}/${c.k}`, String(c.flips.kk.lost.length), list(c.flips.kk.lost)],
      ['gained coverage', String(c.flips.coverage.gained.length), list(c.flips.coverage.gained)],
      ['lost coverage', String(c.flips.coverage.lost.length), list(c.flips.coverage.lost)],
    ],
    note: c.sharpening.summary,
  };
}

export function selectionTable(pool: FrozenPool): Table {
  const bins = pool.edges.slice(0, -1).map((_, i) => binLabel(pool.edges, i));
  return {
    id: 'selection',
    title: `Probed tasks (kept bins ${pool.keep.map((b) => bins[b]).join(' ')})`,
    headers: ['Task', 'Domain', 'k', 'n', ...bins, 'bin', 'mean', '95% interval', 'decision'],
    leftColumns: [0, 1, 4 + bins.length, 7 + bins.length],
    rows: pool.records.map((r) => [
      r.taskId,
      r.domain,
      String(r.k),
      String(r.n),
      ...r.masses.map((m) => m.toFixed(3)),
      bins[r.bin]!,
      r.mean.toFixed(3),
      `[${r.interval[0].toFixed(3)}, ${r.interval[1].toFixed(3)}]`,
      r.reason,
    ]),
  };
}

/** Every version of a re-probed pool: which tasks left and entered after which step, each with its re-probe's k/n. */
export function poolVersionsTable(history: readonly PoolVersion[]): Table {
  const tasks = (changes: readonly PoolChange[]) => changes.map((c) => `${c.taskId} ${c.k}/${c.n}`).join(', ') || '-';
  return {
    id: 'pool-versions',
    title: `Pool versions: ${history.length - 1} re-probes, ${history.reduce((s, v) => s + v.left.length, 0)} tasks swapped`,
    headers: [
      'Version',
      'After step',
      'Tasks',
      'Out (solved or hopeless)',
      'In (now of middle difficulty)',
      'Stayed for want of candidates',
    ],
    rows: history.map((v) => [
      String(v.version),
      String(v.step),
      String(v.size),
      tasks(v.left),
      tasks(v.entered),
      String(v.unreplaced),
    ]),
    leftColumns: [3, 4],
    note: 'k/n: successes of the re-probe with the policy of that step; the pool keeps its size.',
  };
}

export function poolSummaryTable(pool: FrozenPool): Table {
  const bins = pool.edges.slice(0, -1).map((_, i) => binLabel(pool.edges, i));
  return {
    id: 'pool',
    title: `Pool: ${pool.pool.length} of ${pool.records.length} tasks kept${pool.solvabilityFilter ? `; solvability gate: ${pool.records.filter(droppedByGate).length} dropped as never solved by the reference` : ''}`,
    headers: ['Bin', 'Tasks', 'Kept', ...(pool.solvabilityFilter ? ['Unsolved by the reference'] : [])],
    rows: bins.map((label, i) => [
      label + (pool.keep.includes(i) ? ' (kept)' : ''),
      String(pool.records.filter((r) => r.bin === i).length),
      String(pool.records.filter((r) => r.bin === i && r.kept).length),
      ...(pool.solvabilityFilter ? [String(pool.records.filter((r) => r.bin === i && droppedByGate(r)).length)] : []),
    ]),
  };
}

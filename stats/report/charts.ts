import type { EvalPoint, PoolRecord, StepSummary } from '../../schemas/results.js';
import { percent } from '../format.js';
import { lineChart, stackedBarChart } from './svg.js';

export interface Chart {
  id: string;
  title: string;
  svg: string;
  caption: string;
}

const BLUE = '#2563eb';
const ORANGE = '#ea580c';
const GREEN = '#16a34a';
const PURPLE = '#7c3aed';
const GREY = '#9ca3af';

/** The four training curves: mean reward, informative-group fraction, loss and clip fraction per step. */
export function trainingCurves(steps: readonly StepSummary[], idSuffix = ''): Chart[] {
  const curve = (
    name: string,
    title: string,
    color: string,
    y: (s: StepSummary) => number,
    unit: { yMin?: number; yMax?: number },
  ) => ({
    id: `${name}${idSuffix}`,
    title,
    svg: lineChart({
      id: `chart-${name}${idSuffix}`,
      title,
      xLabel: 'step',
      yLabel: title,
      series: [{ name: title, color, points: steps.map((s) => ({ x: s.step, y: y(s) })) }],
      ...unit,
    }),
    caption: steps.length
      ? `${title} over ${steps.length} steps: first ${y(steps[0]!).toFixed(3)}, last ${y(steps[steps.length - 1]!).toFixed(3)}.`
      : `${title}: no steps recorded.`,
  });
  const charts = [
    curve('mean-reward', 'mean reward', BLUE, (s) => s.meanReward, { yMin: 0, yMax: 1 }),
    curve('informative-fraction', 'informative groups', GREEN, (s) => s.informativeFraction, { yMin: 0, yMax: 1 }),
    curve('loss', 'loss', ORANGE, (s) => s.loss, {}),
    curve('clip-fraction', 'clip fraction', PURPLE, (s) => s.clipFraction, { yMin: 0 }),
  ];
  // Recorded by newer campaigns only: drawn when every step has them.
  if (steps.length && steps.every((s) => s.approxKl !== undefined))
    charts.push(curve('approx-kl', 'approx. KL', GREY, (s) => s.approxKl!, {}));
  if (steps.length && steps.every((s) => s.truncatedTurns !== undefined))
    charts.push(curve('cut-off-turns', 'cut-off turns', ORANGE, (s) => s.truncatedTurns!, { yMin: 0 }));
  return charts;
}

/** pass@1 of one domain at one evaluation. */
export interface DomainEvalPoint {
  step: number;
  domain: string;
  pass1: number;
}

const DOMAIN_COLORS = [GREEN, ORANGE, PURPLE, GREY, '#0891b2', '#be123c'];

/** pass@1 at each evaluation, overall (with its interval) and, when given, one line per domain. */
export function evalChart(points: readonly EvalPoint[], domains: readonly DomainEvalPoint[] = []): Chart {
  const sorted = [...points].sort((a, b) => a.step - b.step);
  const names = [...new Set(domains.map((d) => d.domain))].sort();
  const domainSeries =
    names.length > 1
      ? names.map((name, i) => ({
          name,
          color: DOMAIN_COLORS[i % DOMAIN_COLORS.length]!,
          points: domains
            .filter((d) => d.domain === name)
            .sort((a, b) => a.step - b.step)
            .map((d) => ({ x: d.step, y: d.pass1 })),
        }))
      : [];
  return {
    id: 'pass1-per-eval',
    title: 'pass@1 per evaluation',
    svg: lineChart({
      id: 'chart-pass1-per-eval',
      title: 'pass@1 per evaluation (95% interval)',
      xLabel: 'training step (0 = base policy)',
      yLabel: 'pass@1',
      yMin: 0,
      yMax: 1,
      yFormat: (v) => percent(v, 0),
      series: [
        {
          name: 'pass@1 (all)',
          color: BLUE,
          points: sorted.map((p) => ({ x: p.step, y: p.pass1, lo: p.interval?.[0], hi: p.interval?.[1] })),
        },
        ...domainSeries,
      ],
    }),
    caption:
      (sorted.map((p) => `step ${p.step}: ${percent(p.pass1)}`).join(', ') || 'no evaluations recorded.') +
      (domainSeries.length
        ? ` Per domain: ${domainSeries.map((s) => `${s.name} ${s.points.map((p) => percent(p.y, 0)).join(' → ')}`).join('; ')}.`
        : ''),
  };
}

/** Histogram of the posterior mean success rate of the probed tasks, kept vs dropped, in 20 buckets. */
export function poolHistogram(records: readonly PoolRecord[], buckets = 20): Chart {
  const kept = Array<number>(buckets).fill(0);
  const dropped = Array<number>(buckets).fill(0);
  for (const r of records) {
    const i = Math.min(buckets - 1, Math.floor(r.mean * buckets));
    (r.kept ? kept : dropped)[i]! += 1;
  }
  const categories = kept.map((_, i) => (i % 4 === 0 ? (i / buckets).toFixed(1) : ''));
  return {
    id: 'pool-difficulty',
    title: 'Pool difficulty',
    svg: stackedBarChart({
      id: 'chart-pool-difficulty',
      title: 'Pool difficulty (posterior mean success rate)',
      xLabel: 'posterior mean success rate (bucket start)',
      yLabel: 'tasks',
      categories,
      stacks: [
        { name: 'kept', color: BLUE, values: kept },
        { name: 'dropped', color: GREY, values: dropped },
      ],
    }),
    caption: `${records.filter((r) => r.kept).length} of ${records.length} probed tasks kept.`,
  };
}

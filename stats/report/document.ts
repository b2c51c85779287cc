import { DEFAULT_EDGES } from '../bins.js';
import { compareResults, type Comparison } from '../compare.js';
import { COST_WITH_TRAINING_FORMULA, costWithTraining, type TrainingSpend } from '../cost-with-training.js';
import { percent, usd } from '../format.js';
import type { FrozenPool, PriceTable } from '../../schemas/results.js';
import {
  comparisonBreakdownTables,
  comparisonTable,
  flipsTable,
  poolSummaryTable,
  poolVersionsTable,
} from '../tables/layouts.js';
import type { Table } from '../tables/table.js';
import { evalChart, poolHistogram, trainingCurves, type Chart } from './charts.js';
import { coverageParagraphs, coverageTables, surprisalTable } from './coverage.js';
import { failuresTable, flippedTasksTable } from './episodes.js';
import type { ReportInput } from './input.js';

export interface ReportSection {
  id: string;
  title: string;
  paragraphs: string[];
  tables: Table[];
  charts: Chart[];
}

export interface ReportDocument {
  title: string;
  subtitle: string;
  sections: ReportSection[];
  comparison: Comparison;
}

function costTable(c: Comparison): Table {
  const { base, trained } = c.costUsd;
  const rows = [
    ['total', usd(base.total), usd(trained.total)],
    ['per successful attempt', usd(base.perSuccess, 3), usd(trained.perSuccess, 3)],
    [`per dependable task (${c.k}/${c.k})`, usd(base.perDependableTask), usd(trained.perDependableTask)],
  ];
  if (base.byRole && trained.byRole)
    for (const role of ['agent', 'user', 'judge'] as const)
      rows.push([`${role} tokens`, usd(base.byRole[role]), usd(trained.byRole[role])]);
  return {
    id: 'cost',
    title: 'Cost',
    headers: ['Cost', 'Base', 'Trained'],
    rows,
    note:
      base.source === 'prices'
        ? 'From token usage and the price table.'
        : "From the rows' costUsd; errored episodes included.",
  };
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * The reference's cost per dependable task (inference only) beside the one with the probe and the training in it,
 * with the parts of the second. The base policy had no training: its two figures are the same.
 */
function costWithTrainingTable(c: Comparison, training: TrainingSpend, prices?: PriceTable): Table {
  const k = c.k;
  const base = c.costUsd.base;
  const t = costWithTraining(c.costUsd.trained.total, c.counts.observedKK.trained, training, prices);
  return {
    id: 'cost-with-training',
    title: `Cost per dependable task (${k}/${k}), with the probe and the training in it`,
    headers: ['Cost', 'Base', 'Trained'],
    rows: [
      ['evaluation episodes', usd(base.total, 3), usd(t.evaluationUsd, 3)],
      [`probe: ${count(training.probe.episodes, 'episode')}`, '—', usd(t.probeUsd, 3)],
      [
        `training rollouts: ${count(training.rollouts.episodes, 'episode')} in ${count(training.steps, 'step')}`,
        '—',
        usd(t.rolloutsUsd, 3),
      ],
      [
        `update and publish: ${t.gpuHours.toFixed(4)} GPU-hours at ${usd(t.usdPerGpuHour)} (${count(t.gpus, 'GPU')})`,
        '—',
        usd(t.computeUsd, 3),
      ],
      [`tasks passed ${k}/${k}`, String(c.counts.observedKK.base), String(c.counts.observedKK.trained)],
      [
        "per dependable task, inference only (the reference's)",
        usd(base.perDependableTask, 3),
        usd(t.inferenceOnly, 3),
      ],
      ['per dependable task, with the probe and the training', usd(base.perDependableTask, 3), usd(t.withTraining, 3)],
    ],
    note: `With the training: ${COST_WITH_TRAINING_FORMULA}. GPU-hours are CPU-hours on a machine without GPUs; the price is the campaign's costs.usdPerGpuHour.`,
  };
}

/** One row per GRPO step; the last column links to the step's episode index when there is one. */
function stepsTable(input: ReportInput): Table {
  const pages = new Map((input.episodes?.steps ?? []).map((s) => [s.step, s]));
  const num = (v: number | undefined, digits = 3) => (v === undefined ? '—' : v.toFixed(digits));
  const rows = input.steps.map((s) => {
    const page = pages.get(s.step);
    return [
      String(s.step),
      num(s.meanReward),
      num(s.informativeFraction),
      num(s.loss, 4),
      num(s.clipFraction),
      num(s.approxKl, 4),
      s.truncatedTurns === undefined ? '—' : String(s.truncatedTurns),
      `${s.replacements ?? '—'} / ${s.refills ?? '—'}`,
      s.infraFailures === undefined ? '—' : String(s.infraFailures),
      num(s.wallSeconds?.total, 1),
      page ? `${page.passed}/${page.episodes} passed` : '—',
    ];
  });
  return {
    id: 'steps',
    title: 'GRPO steps',
    headers: [
      'Step',
      'mean reward',
      'informative',
      'loss',
      'clip',
      'approx. KL',
      'cut-off turns',
      'replaced / refilled',
      'infra',
      'wall s',
      'episodes',
    ],
    rows,
    links: input.steps.map((s) => [...Array<undefined>(10).fill(undefined), pages.get(s.step)?.href]),
  };
}

/** Compute everything the report shows, once, for both renderings. */
export function buildReport(input: ReportInput): ReportDocument {
  const c = compareResults(input.base, input.trained, {
    k: input.k,
    prices: input.prices,
    sources: ['base results', 'trained results'],
    ...(input.trainingDomains ? { trainingDomains: input.trainingDomains } : {}),
  });
  const pool: FrozenPool = {
    edges: input.edges ?? [...DEFAULT_EDGES],
    keep: [],
    solvabilityFilter: input.solvabilityFilter ?? false,
    max: null,
    seed: 0,
    records: input.pool,
    pool: input.pool.filter((r) => r.kept).map((r) => r.taskId),
  };
  const poolTable = poolSummaryTable(pool);
  const m = c.metrics;
  const headline =
    `On ${c.tasks.paired} tasks with k = ${c.k}, pass@1 went from ${percent(m.pass1.base)} to ${percent(m.pass1.trained)}, ` +
    `tasks passed ${c.k}/${c.k} from ${c.counts.observedKK.base} to ${c.counts.observedKK.trained}, and pass@${c.k} from ${percent(m.passAtK.base)} to ${percent(m.passAtK.trained)}.`;
  const unpaired = c.tasks.onlyBase.length + c.tasks.onlyTrained.length;
  return {
    title: input.title,
    subtitle: `finalstate campaign report${input.generatedAt ? `, ${input.generatedAt}` : ''}`,
    comparison: c,
    sections: [
      {
        id: 'results',
        title: 'Base vs trained',
        paragraphs: [
          headline,
          ...(input.deviations ?? []),
          c.sharpening.summary,
          ...(unpaired ? [`${unpaired} tasks measured by only one side are left out.`] : []),
        ],
        tables: [
          comparisonTable(c),
          ...comparisonBreakdownTables(c),
          costTable(c),
          ...(input.training ? [costWithTrainingTable(c, input.training, input.prices)] : []),
          { ...flipsTable(c), note: undefined },
          ...(input.episodes ? [flippedTasksTable(c, input.episodes), failuresTable(input.episodes)] : []),
        ],
        // Beside the before/after tables: pass@1 at each evaluation (overall and per domain) and the reward curve.
        charts: [
          evalChart(input.evalPoints, input.domainEvalPoints),
          ...trainingCurves(input.steps, '-beside').slice(0, 1),
        ],
      },
      {
        id: 'coverage',
        title: 'Where coverage goes',
        paragraphs: coverageParagraphs(c, input.episodes),
        tables: [...coverageTables(c, input.episodes), ...(input.episodes ? [surprisalTable(c, input.episodes)] : [])],
        charts: [],
      },
      {
        id: 'training',
        title: 'Training curves',
        paragraphs: input.failedStep
          ? [`Step ${input.failedStep.step} failed and waits for replay-step: ${input.failedStep.message}`]
          : [],
        tables: [stepsTable(input)],
        charts: trainingCurves(input.steps),
      },
      {
        id: 'pool',
        title: 'Training pool',
        paragraphs: [],
        tables: [poolTable, ...(input.poolHistory ? [poolVersionsTable(input.poolHistory)] : [])],
        charts: [poolHistogram(input.pool)],
      },
    ],
  };
}

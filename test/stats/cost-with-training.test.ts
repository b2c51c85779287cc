import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PriceTable, ResultSetSpend, StepSummary } from '../../schemas/results.js';
import { costWithTraining, resultSetKind, trainingSpend } from '../../stats/cost-with-training.js';
import { buildReport } from '../../stats/report/document.js';
import type { ReportInput } from '../../stats/report/input.js';
import { taskRows } from './rows.js';

const tokens = (input: number, output: number) => ({ inputTokens: input, cachedInputTokens: 0, outputTokens: output });
const spend = (resultSet: string, episodes: number, costUsd: number): ResultSetSpend => ({
  resultSet,
  episodes,
  costUsd,
  usage: { agent: tokens(1000 * episodes, 100 * episodes), user: tokens(0, 0), judge: tokens(0, 0) },
});
const step = (n: number, update: number, publish: number): StepSummary => ({
  step: n,
  meanReward: 0.5,
  informativeFraction: 1,
  loss: 0,
  clipFraction: 0,
  wallSeconds: { rollouts: 100, batch: 1, update, publish, total: 100 + 1 + update + publish },
});
const sets = [
  spend('c1/probe', 40, 4),
  spend('c1/probe-reference', 10, 1),
  spend('c1/eval-step-0', 16, 1.6),
  spend('c1/step-1', 32, 3.2),
  spend('c1/reprobe-step-1', 20, 2),
  spend('c1/step-2', 32, 3.2),
  spend('c1/eval-step-2', 16, 1.6),
  spend('c1/step-3', 32, 3.2),
  spend('c1/reprobe-step-2', 20, 2),
  spend('c10/step-1', 999, 999), // another campaign whose id starts the same
];

test("result sets by kind, as the workflows name them; another campaign's sets are not this one's", () => {
  assert.deepEqual(resultSetKind('c1', 'c1/probe'), { kind: 'probe', step: 0 });
  assert.deepEqual(resultSetKind('c1', 'c1/reprobe-step-4'), { kind: 'probe', step: 4 });
  assert.deepEqual(resultSetKind('c1', 'c1/step-12'), { kind: 'rollouts', step: 12 });
  assert.deepEqual(resultSetKind('c1', 'c1/eval-step-0'), { kind: 'evaluation', step: 0 });
  assert.equal(resultSetKind('c1', 'c10/step-1').kind, 'other');
  assert.equal(resultSetKind('c1', 'c1/step-1-replay-1').kind, 'other');
});

test('the second figure adds the probe, the rollouts and the update and publish time; the first stays inference only', () => {
  const compute = { usdPerGpuHour: 3, gpus: 2 };
  const steps = [step(1, 1800, 0), step(2, 1200, 600), step(3, 3600, 0)];
  // The policy of step 2: the probes before it (not the re-probe after step 2), steps 1 and 2.
  const at2 = trainingSpend('c1', sets, steps, compute, 2);
  assert.deepEqual([at2.probe.episodes, at2.probe.costUsd], [70, 7]);
  assert.deepEqual([at2.rollouts.episodes, at2.rollouts.costUsd], [64, 6.4]);
  assert.deepEqual([at2.steps, at2.updateSeconds, at2.publishSeconds], [2, 3000, 600]);
  const cost = costWithTraining(1.6, 4, at2);
  assert.equal(cost.gpuHours, 2, '(3000 + 600) s / 3600 × 2 GPUs');
  assert.equal(cost.computeUsd, 6);
  assert.equal(cost.inferenceOnly, 0.4);
  assert.ok(Math.abs(cost.withTraining! - (1.6 + 7 + 6.4 + 6) / 4) < 1e-12);

  // More training rollouts, or a longer update, change the second figure and not the first.
  const moreSets = sets.map((s) => (s.resultSet === 'c1/step-1' ? spend('c1/step-1', 64, 6.4) : s));
  const moreRollouts = costWithTraining(1.6, 4, trainingSpend('c1', moreSets, steps, compute, 2));
  const longerUpdate = costWithTraining(
    1.6,
    4,
    trainingSpend('c1', sets, [step(1, 5400, 0), ...steps.slice(1)], compute, 2),
  );
  for (const changed of [moreRollouts, longerUpdate]) {
    assert.equal(changed.inferenceOnly, cost.inferenceOnly);
    assert.ok(changed.withTraining! > cost.withTraining!, `${changed.withTraining} > ${cost.withTraining}`);
  }
  assert.equal(costWithTraining(1.6, 0, at2).withTraining, null, 'no task passed k/k');

  // Every step by default; a price table prices the tokens instead of the rows' costUsd.
  const all = trainingSpend('c1', sets, steps, compute);
  assert.deepEqual([all.probe.episodes, all.rollouts.episodes, all.steps], [90, 96, 3]);
  const prices: PriceTable = {
    models: { m: { input: 1, cachedInput: 0.5, output: 10 } },
    roles: { agent: 'm', user: 'm', judge: 'm' },
  };
  const priced = costWithTraining(0, 1, all, prices);
  assert.ok(Math.abs(priced.rolloutsUsd - 96 * (1000 * 1 + 100 * 10) * 1e-6) < 1e-12);
});

test('the report shows both figures: the training cost is in the second and only there', () => {
  const base = [...taskRows('a', [1, 1], { costUsd: 1 }), ...taskRows('b', [0, 1], { costUsd: 1 })];
  const trained = [...taskRows('a', [1, 1], { costUsd: 1 }), ...taskRows('b', [1, 1], { costUsd: 1 })];
  const input = (update: number): ReportInput => ({
    title: 't',
    base,
    trained,
    steps: [],
    evalPoints: [],
    pool: [],
    training: trainingSpend('c1', sets, [step(1, update, 0)], { usdPerGpuHour: 2, gpus: 1 }, 1),
  });
  const table = (update: number) =>
    buildReport(input(update))
      .sections.find((s) => s.id === 'results')!
      .tables.find((t) => t.id === 'cost-with-training')!;
  const row = (update: number, label: RegExp) => table(update).rows.find((r) => label.test(r[0]!))!;
  const inference = /inference only/;
  const withTraining = /with the probe and the training/;
  // Trained: 4 evaluation episodes at 1 $, 2 tasks passed 2/2; probe 5 $, rollouts 3.2 $, one hour at 2 $.
  assert.deepEqual(row(3600, inference), [
    "per dependable task, inference only (the reference's)",
    '4.000 $',
    '2.000 $',
  ]);
  assert.deepEqual(row(3600, withTraining), [
    'per dependable task, with the probe and the training',
    '4.000 $',
    '7.100 $',
  ]);
  assert.deepEqual(row(0, inference), row(3600, inference));
  assert.deepEqual(row(0, withTraining).slice(0, 3), [
    'per dependable task, with the probe and the training',
    '4.000 $',
    '6.100 $',
  ]);
  assert.match(table(0).note!, /update s \+ publish s\) \/ 3600 × GPUs × price per GPU-hour/);
});

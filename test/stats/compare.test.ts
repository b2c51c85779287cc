import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareResults } from '../../stats/compare.js';
import { pairedBootstrapIntervals, quantileOfSorted } from '../../stats/paired-bootstrap.js';
import { taskRows } from './rows.js';

test('per-task flips, unpaired tasks and per-domain deltas', () => {
  const base = [
    ...taskRows('A', [1, 1, 1]), // 3/3 -> 2/3: lost k/k
    ...taskRows('B', [0, 1, 0]), // 1/3 -> 3/3: gained k/k
    ...taskRows('C', [0, 0, 0], { domain: 'd2' }), // 0/3 -> 1/3: gained coverage
    ...taskRows('D', [1, 0, 0], { domain: 'd2' }), // 1/3 -> 0/3: lost coverage
    ...taskRows('onlyBase', [1, 1, 1]),
  ];
  const trained = [
    ...taskRows('A', [1, 0, 1]),
    ...taskRows('B', [1, 1, 1]),
    ...taskRows('C', [0, 1, 0], { domain: 'd2' }),
    ...taskRows('D', [0, 0, 0], { domain: 'd2' }),
    ...taskRows('onlyTrained', [0, 0, 0]),
  ];
  const c = compareResults(base, trained);
  assert.equal(c.k, 3);
  assert.deepEqual(c.tasks, { paired: 4, onlyBase: ['onlyBase'], onlyTrained: ['onlyTrained'] });
  assert.deepEqual(c.flips, { kk: { gained: ['B'], lost: ['A'] }, coverage: { gained: ['C'], lost: ['D'] } });
  assert.ok(Math.abs(c.metrics.pass1.base - 5 / 12) < 1e-15);
  assert.ok(Math.abs(c.metrics.pass1.trained - 1 / 2) < 1e-15);
  assert.ok(Math.abs(c.metrics.pass1.delta - 1 / 12) < 1e-15);
  assert.deepEqual(Object.keys(c.byDomain), ['d1', 'd2']);
  assert.ok(Math.abs(c.byDomain.d1!.metrics.pass1.delta - 1 / 6) < 1e-15, 'd1: (2/3 + 1)/2 − (1 + 1/3)/2');
  assert.equal(c.sharpening.verdict, 'unchanged', 'one gained and one lost of each');
  assert.equal(c.intervalMethod.name, 'paired-bootstrap-over-tasks');
  assert.deepEqual(compareResults(base, trained), c, 'a fixed seed gives the same intervals');
});

test('verdicts', () => {
  const base = [...taskRows('A', [1, 1]), ...taskRows('B', [1, 0]), ...taskRows('C', [0, 0])];
  const better = [...taskRows('A', [1, 1]), ...taskRows('B', [1, 1]), ...taskRows('C', [0, 1])];
  assert.equal(compareResults(base, better).sharpening.verdict, 'improvement');
  assert.equal(compareResults(better, base).sharpening.verdict, 'regression');
  const broader = [...taskRows('A', [1, 0]), ...taskRows('B', [1, 0]), ...taskRows('C', [0, 1])];
  assert.equal(compareResults(base, broader).sharpening.verdict, 'broadening');
  assert.equal(compareResults(broader, base).sharpening.verdict, 'sharpening');
  assert.throws(() => compareResults(base, better, { k: 3 }), /k=3 exceeds the trials with an outcome of task "A"/);
  assert.throws(() => compareResults(base, taskRows('Z', [1])), /no task with an outcome in common/);
});

test('paired bootstrap: constant differences give a point interval; quantiles interpolate', () => {
  assert.deepEqual(pairedBootstrapIntervals([[0.5, 0.5, 0.5]], { resamples: 100, seed: 1, level: 0.95 }), [[0.5, 0.5]]);
  assert.equal(quantileOfSorted([0, 10], 0.25), 2.5);
  const [interval] = pairedBootstrapIntervals([[0, 1, 0, 1, 0, 1, 0, 1]], { resamples: 4000, seed: 5, level: 0.95 });
  // The mean of 8 fair coin flips resampled: the interval spans roughly 0.5 ± 1.96·sqrt(0.25/8) ≈ [0.15, 0.85].
  assert.ok(
    interval![0] > 0.05 && interval![0] < 0.3 && interval![1] > 0.7 && interval![1] < 0.95,
    `interval ${interval}`,
  );
});

test('with the training domains known, metrics and comparisons split in-domain from out-of-domain, cost included', async () => {
  const { computeMetrics } = await import('../../stats/metrics.js');
  const { comparisonBreakdownTables, metricsTables } = await import('../../stats/tables/layouts.js');
  const { renderText } = await import('../../stats/tables/table.js');
  const base = [
    ...taskRows('r1', [1, 0, 1], { domain: 'retail', costUsd: 1 }),
    ...taskRows('r2', [1, 1, 1], { domain: 'retail', costUsd: 1 }),
    ...taskRows('i1', [0, 0, 1], { domain: 'insurance', costUsd: 1 }),
    ...taskRows('n1', [0, 0, 0], { domain: 'neobank', costUsd: 1 }),
  ];
  const trained = [
    ...taskRows('r1', [1, 1, 1], { domain: 'retail', costUsd: 1 }),
    ...taskRows('r2', [1, 1, 1], { domain: 'retail', costUsd: 1 }),
    ...taskRows('i1', [0, 1, 1], { domain: 'insurance', costUsd: 1 }),
    ...taskRows('n1', [0, 0, 0], { domain: 'neobank', costUsd: 1 }),
  ];
  const m = computeMetrics(base, { trainingDomains: ['retail'] });
  assert.deepEqual(Object.keys(m.byDistribution!).sort(), ['in-domain', 'out-of-domain']);
  assert.equal(m.byDistribution!['in-domain']!.tasks, 2);
  assert.ok(Math.abs(m.byDistribution!['out-of-domain']!.pass1 - 1 / 6) < 1e-15, '(1/3 + 0)/2');
  assert.equal(computeMetrics(base).byDistribution, undefined, 'no split without the training domains');

  const c = compareResults(base, trained, { trainingDomains: ['retail'] });
  const inD = c.byDistribution!['in-domain']!;
  const outD = c.byDistribution!['out-of-domain']!;
  assert.deepEqual([inD.tasks, outD.tasks], [2, 2]);
  assert.deepEqual(inD.counts.observedKK, { base: 1, trained: 2 });
  assert.ok(Math.abs(outD.metrics.pass1.delta - 1 / 6) < 1e-15);
  assert.equal(inD.costUsd.base.perDependableTask, 6, '6 episodes at 1 $, one task 3/3');
  assert.equal(outD.costUsd.trained.perDependableTask, null, 'no out-of-domain task passed 3/3');
  const text = [...metricsTables(m), ...comparisonBreakdownTables(c)].map(renderText).join('\n');
  assert.match(text, /In-domain vs out-of-domain \(trained on retail\)/);
  assert.match(text, /out-of-domain/);
});

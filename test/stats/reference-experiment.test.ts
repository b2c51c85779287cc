import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareResults } from '../../stats/compare.js';
import { computeMetrics } from '../../stats/metrics.js';
import { after, before, referenceResultSets, TASKS, TRIALS } from './reference-experiment.js';

const pct2 = (x: number) => (100 * x).toFixed(2);
const { before: beforeRows, after: afterRows } = referenceResultSets();

test('the synthetic set has the published shape', () => {
  assert.equal(beforeRows.length, TASKS * TRIALS);
  assert.equal(beforeRows.filter((r) => r.reward === 1).length, before.successes);
  assert.equal(afterRows.filter((r) => r.reward === 1).length, after.successes);
});

/** The published figures, as printed (percent with two decimals, dollars as published). */
const published = [
  {
    phase: 'before',
    rows: beforeRows,
    successes: 5242,
    pass1: '51.70',
    kk: 38,
    kkPercent: '7.50',
    covered: 453,
    pass20: '89.35',
    total: '925.80',
    perSuccess: '0.177',
    perDependable: '24.36',
  },
  {
    phase: 'after',
    rows: afterRows,
    successes: 6163,
    pass1: '60.78',
    kk: 107,
    kkPercent: '21.10',
    covered: 446,
    pass20: '87.97',
    total: '855.58',
    perSuccess: '0.139',
    perDependable: '8.00',
  },
];

for (const p of published) {
  test(`${p.phase} training: ${p.pass1}% pass@1, ${p.kkPercent}% at 20/20, ${p.pass20}% pass@20, ${p.perSuccess} $/success, ${p.perDependable} $/dependable task`, () => {
    const m = computeMetrics(p.rows);
    assert.equal(m.k, 20);
    assert.equal(m.successes, p.successes);
    assert.equal(pct2(m.pass1), p.pass1);
    assert.equal(m.observedKK.count, p.kk);
    assert.equal(pct2(m.observedKK.fraction), p.kkPercent);
    assert.equal(m.coverage.count, p.covered);
    assert.equal(pct2(m.passAtK), p.pass20);
    assert.equal(m.costUsd.total.toFixed(2), p.total);
    assert.equal(m.costUsd.perSuccess!.toFixed(3), p.perSuccess);
    assert.equal(m.costUsd.perDependableTask!.toFixed(2), p.perDependable);
  });
}

test('the comparison sees the sharpening: reliability up, coverage down', () => {
  const c = compareResults(beforeRows, afterRows);
  assert.equal(c.tasks.paired, TASKS);
  assert.equal(pct2(c.metrics.pass1.delta), pct2((6163 - 5242) / (TASKS * TRIALS)));
  assert.ok(c.metrics.pass1.interval[0] > 0, 'pass@1 rose significantly');
  assert.ok(
    c.metrics.pass1.interval[0] <= c.metrics.pass1.delta && c.metrics.pass1.delta <= c.metrics.pass1.interval[1],
  );
  assert.equal(c.flips.kk.gained.length - c.flips.kk.lost.length, 107 - 38);
  assert.equal(c.flips.coverage.lost.length - c.flips.coverage.gained.length, 453 - 446);
  assert.equal(c.sharpening.verdict, 'sharpening');
  assert.match(c.sharpening.summary, /went from 38 to 107/);
  assert.equal(c.sharpening.reliabilityChangeSignificant, true);
  const domains = Object.values(c.byDomain);
  assert.equal(
    domains.reduce((s, d) => s + d.tasks, 0),
    TASKS,
  );
  assert.equal(
    domains.reduce((s, d) => s + d.counts.observedKK.trained, 0),
    107,
  );
  assert.equal(c.costUsd.delta.toFixed(2), (855.58 - 925.8).toFixed(2));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PriceTable, ResultRow } from '../../schemas/results.js';
import { rowCostByRole, usageCost } from '../../stats/cost.js';
import { computeMetrics } from '../../stats/metrics.js';
import { parseResultRows } from '../../stats/result-set.js';
import { row, taskRows, toJsonl } from './rows.js';

const close = (actual: number, expected: number, what: string, tolerance = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: got ${actual}, expected ${expected}`);

/** A: 4/4 in d1 [x]; B: 2/4 in d1 [x,y]; C: 0/4 plus one infra error in d2 [y]; D: only grader errors in d2. */
function handSet(): ResultRow[] {
  const cost = { costUsd: 0.01 };
  return [
    ...taskRows('A', [1, 1, 1, 1], { ...cost, tags: ['x'] }),
    ...taskRows('B', [1, 0, 1, 0], { ...cost, tags: ['x', 'y'] }),
    ...taskRows('C', [0, 0, 0, 0], { ...cost, domain: 'd2', tags: ['y'] }),
    row('C', 4, 1, { ...cost, domain: 'd2', tags: ['y'], error: 'infra' }),
    row('D', 0, 0, { ...cost, domain: 'd2', error: 'grader' }),
    row('D', 1, 0, { ...cost, domain: 'd2', error: 'grader' }),
  ];
}

test('hand-computed metrics of a small set, with errors excluded and reported', () => {
  const m = computeMetrics(handSet());
  assert.equal(m.k, 4, 'default k is the smallest n');
  assert.equal(m.tasks, 3);
  assert.equal(m.successes, 6, 'the infra row with reward 1 is not a success');
  assert.equal(m.attempts, 12);
  close(m.pass1, (1 + 0.5 + 0) / 3, 'pass@1 = mean of rates');
  close(m.passAtK, 2 / 3, 'pass@4');
  assert.deepEqual(m.observedKK, { count: 1, fraction: 1 / 3 });
  assert.deepEqual(m.coverage, { count: 2, fraction: 2 / 3 });
  close(m.passHatK.unbiased, 1 / 3, 'pass^4 unbiased');
  close(m.passHatK.plugin, (1 + 0.5 ** 4) / 3, 'pass^4 plug-in');
  const eA = (4.5 / 5) * (5.5 / 6) * (6.5 / 7) * (7.5 / 8);
  const eB = (2.5 / 5) * (3.5 / 6) * (4.5 / 7) * (5.5 / 8);
  const eC = (0.5 / 5) * (1.5 / 6) * (2.5 / 7) * (3.5 / 8);
  close(m.posteriorPassHatK, (eA + eB + eC) / 3, 'Jeffreys E[p^4]');
  assert.ok(m.intervals.pass1[0] < m.pass1 && m.pass1 < m.intervals.pass1[1], 'pass@1 inside its interval');

  close(m.costUsd.total, 0.15, 'every row is paid for, errored ones included');
  close(m.costUsd.perSuccess!, 0.15 / 6, 'cost per success');
  close(m.costUsd.perDependableTask!, 0.15, 'cost per dependable task');
  assert.equal(m.costUsd.byRole, null, 'no role split without a price table');

  assert.equal(m.excluded.rows, 3);
  assert.equal(m.excluded.infra, 1);
  assert.equal(m.excluded.grader, 2);
  close(m.excluded.costUsd, 0.03, 'cost of excluded rows');
  assert.deepEqual(m.excluded.tasksWithoutOutcome, ['D']);
  assert.deepEqual(m.excluded.byTask, { C: { infra: 1, grader: 0 }, D: { infra: 0, grader: 2 } });

  assert.deepEqual(Object.keys(m.byDomain), ['d1', 'd2']);
  close(m.byDomain.d1!.pass1, 0.75, 'd1 pass@1');
  assert.equal(m.byDomain.d2!.tasks, 1, 'D has no outcome and is not counted in d2');
  close(m.byDomain.d2!.costUsd.total, 0.07, 'd2 cost includes its errored rows');
  assert.deepEqual(Object.keys(m.byTag), ['x', 'y']);
  assert.equal(m.byTag.y!.tasks, 2);
  close(m.byTag.y!.pass1, 0.25, 'tag y pass@1');
  assert.equal(m.perTask.find((t) => t.taskId === 'C')!.n, 4);
});

test('k below n: pass@k and observed k/k use the first k trials', () => {
  const m = computeMetrics(handSet(), { k: 2 });
  close(m.passAtK, (1 + (1 - 1 / 6) + 0) / 3, 'pass@2: B gives 1 − C(2,2)/C(4,2)');
  assert.equal(m.observedKK.count, 1, 'B starts 1,0');
  const reordered = computeMetrics([...taskRows('B', [1, 1, 0, 0])], { k: 2 });
  assert.equal(reordered.observedKK.count, 1, 'first two trials both succeeded');
});

test('k larger than a task’s n is an error naming the task', () => {
  assert.throws(
    () => computeMetrics(handSet(), { k: 5 }),
    /k=5 exceeds the trials with an outcome of task "A" \(n=4\)/,
  );
});

test('unequal n is reported and the default k is the smallest n', () => {
  const m = computeMetrics([...taskRows('A', [1, 1, 1]), ...taskRows('B', [1, 0, 1, 1])]);
  assert.deepEqual(m.trials, { min: 3, max: 4, equal: false, counts: { '3': 1, '4': 1 } });
  assert.equal(m.k, 3);
  close(m.pass1, (1 + 0.75) / 2, 'each task weighs the same');
});

test('a price table gives the cost per role', () => {
  const prices: PriceTable = {
    models: { big: { input: 2, cachedInput: 0.5, output: 8 }, small: { input: 0.1, cachedInput: 0.1, output: 0.4 } },
    roles: { agent: 'big', user: 'small', judge: 'small' },
  };
  const usage = {
    agent: { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 200 },
    user: { inputTokens: 10_000, cachedInputTokens: 0, outputTokens: 1000 },
    judge: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
  };
  close(usageCost(usage.agent, prices.models.big!), (600 * 2 + 400 * 0.5 + 200 * 8) / 1e6, 'agent cost');
  const r = row('A', 0, 1, { usage });
  assert.deepEqual(rowCostByRole(r, prices), { agent: 0.003, user: 0.0014, judge: 0 });
  const m = computeMetrics([r, row('A', 1, 0, { usage })], { prices });
  close(m.costUsd.total, 2 * 0.0044, 'total from prices');
  close(m.costUsd.byRole!.agent, 0.006, 'agent total');
  assert.equal(m.costUsd.source, 'prices');
});

test('bad input fails the whole load, naming the line', () => {
  const good = toJsonl(taskRows('A', [1, 0]));
  assert.throws(() => parseResultRows(`${good}{"taskId":"B"}\n`, 'r.jsonl'), /r\.jsonl:3: not a result row: domain/);
  assert.throws(() => parseResultRows(`${good}not json\n`, 'r.jsonl'), /r\.jsonl:3: not JSON/);
  assert.throws(() => parseResultRows('\n', 'r.jsonl'), /r\.jsonl: no result rows/);
  assert.throws(() => computeMetrics([row('A', 0, 1), row('A', 0, 0)]), /task "A" has two rows for trial 0/);
  assert.throws(
    () => computeMetrics([row('A', 0, 1), row('A', 1, 0, { domain: 'd2' })]),
    /task "A" has rows in domains d1 and d2/,
  );
  assert.throws(() => computeMetrics([row('A', 0, 1, { error: 'infra' })]), /no episode has an outcome/);
});

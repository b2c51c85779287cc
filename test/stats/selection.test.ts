import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrozenPool, type ResultRow } from '../../schemas/results.js';
import { DEFAULT_EDGES } from '../../stats/bins.js';
import { allocateProportionally, selectPool, stratifiedSample } from '../../stats/selection.js';
import { groupByTask } from '../../stats/result-set.js';
import { row, taskRows } from './rows.js';

const rewards = (c: number, n: number) => Array.from({ length: n }, (_, i) => (i < c ? 1 : 0) as 0 | 1);

function probe(): ResultRow[] {
  return [
    ...taskRows('easy', rewards(10, 10)), // bin 4
    ...taskRows('hard', rewards(0, 10)), // bin 0
    ...taskRows('mid', rewards(5, 10)), // bin 2
    ...taskRows('low', rewards(2, 10)), // bin 1
    ...taskRows('high', rewards(7, 10)), // bin 3
    row('broken', 0, 1, { error: 'infra' }),
  ];
}

test('every probed task is recorded with its estimate and the reason it was kept or dropped', () => {
  const pool = selectPool(groupByTask(probe()));
  const byId = Object.fromEntries(pool.records.map((r) => [r.taskId, r]));
  assert.deepEqual(
    pool.records.map((r) => r.taskId),
    ['broken', 'easy', 'hard', 'high', 'low', 'mid'],
  );
  assert.deepEqual(Object.fromEntries(pool.records.map((r) => [r.taskId, [r.bin, r.reason]])), {
    broken: [1, 'no-outcome'],
    easy: [4, 'bin-not-kept'],
    hard: [0, 'bin-not-kept'],
    high: [3, 'kept'],
    low: [1, 'kept'],
    mid: [2, 'kept'],
  });
  assert.deepEqual(pool.pool, ['high', 'low', 'mid']);
  assert.equal(byId.mid!.k, 5);
  assert.equal(byId.mid!.n, 10);
  assert.equal(byId.mid!.masses.length, 5);
  assert.ok(Math.abs(byId.mid!.mean - 5.5 / 11) < 1e-15);
  assert.deepEqual(pool.edges, [...DEFAULT_EDGES]);
  assert.deepEqual(pool.keep, [1, 2, 3]);
  assert.deepEqual(
    FrozenPool.parse(JSON.parse(JSON.stringify(pool))),
    pool,
    'the frozen pool matches its published schema',
  );
});

test('the solvability filter keeps only tasks the reference solved at least once', () => {
  const reference = groupByTask([...taskRows('mid', [0, 0, 1]), ...taskRows('low', [0, 0, 0])]);
  const pool = selectPool(groupByTask(probe()), { reference });
  const reasons = Object.fromEntries(pool.records.map((r) => [r.taskId, r.reason]));
  assert.equal(reasons.mid, 'kept');
  assert.equal(reasons.low, 'unsolved-by-reference');
  assert.equal(reasons.high, 'absent-from-reference');
  assert.equal(reasons.easy, 'bin-not-kept', 'the bin rule is applied first');
  assert.equal(pool.solvabilityFilter, true);
});

test('a capped pool is a deterministic, seeded, stratified sample', () => {
  const rows: ResultRow[] = [];
  for (let i = 0; i < 60; i++) {
    const domain = i < 40 ? 'big' : 'small';
    rows.push(...taskRows(`t${String(i).padStart(2, '0')}`, rewards(5, 10), { domain, tags: [i % 2 ? 'a' : 'b'] }));
  }
  const tasks = groupByTask(rows);
  const first = selectPool(tasks, { max: 15, seed: 7 });
  const again = selectPool(tasks, { max: 15, seed: 7 });
  const other = selectPool(tasks, { max: 15, seed: 8 });
  assert.deepEqual(first, again, 'same seed, same pool');
  assert.notDeepEqual(first.pool, other.pool, 'another seed, another pool');
  assert.equal(first.pool.length, 15);
  const kept = first.records.filter((r) => r.kept);
  assert.equal(kept.filter((r) => r.domain === 'big').length, 10, 'strata keep their proportion (40 of 60)');
  assert.equal(
    kept.filter((r) => r.domain === 'small' && r.tags[0] === 'a').length +
      kept.filter((r) => r.domain === 'small' && r.tags[0] === 'b').length,
    5,
  );
  assert.equal(first.records.filter((r) => r.reason === 'over-cap').length, 45);
  // Stratum streams are independent: dropping the small domain does not change which big tasks are drawn.
  const bigOnly = selectPool(groupByTask(rows.filter((r) => r.domain === 'big')), { max: 10, seed: 7 });
  assert.deepEqual(
    bigOnly.pool,
    kept.filter((r) => r.domain === 'big').map((r) => r.taskId),
  );
});

test('largest-remainder allocation sums to the cap', () => {
  const quotas = allocateProportionally(
    new Map([
      ['a', 5],
      ['b', 3],
      ['c', 1],
    ]),
    4,
    1,
  );
  assert.equal(
    [...quotas.values()].reduce((s, v) => s + v, 0),
    4,
  );
  assert.equal(quotas.get('a'), 2);
  assert.equal(
    stratifiedSample([{ taskId: 'x', domain: 'd', tags: [] }], 5, 1).size,
    1,
    'a cap above the size keeps all',
  );
  assert.throws(() => selectPool([], { keep: [9] }), /kept bin 9/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PoolSwap, type ResultRow } from '../../schemas/results.js';
import { poolChangeOf, swapPool } from '../../stats/pool-swap.js';
import { groupByTask } from '../../stats/result-set.js';
import { poolVersionsTable } from '../../stats/tables/layouts.js';
import { renderText } from '../../stats/tables/table.js';
import { row, taskRows } from './rows.js';

const rewards = (c: number, n: number) => Array.from({ length: n }, (_, i) => (i < c ? 1 : 0) as 0 | 1);
const ids = (records: readonly { taskId: string }[]) => records.map((r) => r.taskId);

// With the default edges and keep [1, 2, 3]: 8/8 is solved (bin 4), 0/8 hopeless (bin 0), 1..7/8 middle.
test('pool tasks that left the middle bins are swapped for candidates now in them; the pool keeps its size', () => {
  const reprobe: ResultRow[] = [
    ...taskRows('p-solved', rewards(8, 8)),
    ...taskRows('p-hopeless', rewards(0, 8)),
    ...taskRows('p-mid', rewards(4, 8)),
    ...taskRows('c-mid-a', rewards(3, 8)),
    ...taskRows('c-mid-b', rewards(5, 8)),
    ...taskRows('c-mid-c', rewards(2, 8)),
    ...taskRows('c-solved', rewards(8, 8)),
  ];
  const swapped = swapPool(['p-solved', 'p-mid', 'p-hopeless'], groupByTask(reprobe), { seed: 3 });
  PoolSwap.omit({ step: true, probeResultSet: true }).parse(swapped);
  assert.deepEqual(ids(swapped.left).sort(), ['p-hopeless', 'p-solved']);
  assert.equal(swapped.entered.length, 2);
  assert.ok(ids(swapped.entered).every((id) => ['c-mid-a', 'c-mid-b', 'c-mid-c'].includes(id)));
  assert.deepEqual(swapped.pool, ['p-mid', ...ids(swapped.entered)].sort());
  assert.deepEqual(swapped.before, ['p-hopeless', 'p-mid', 'p-solved']);
  assert.deepEqual(swapped.unreplaced, []);
  // Most confident first: 8/8 has more mass above 0.9 than 0/8 below 0.08.
  assert.deepEqual(
    swapped.left.map((r) => [r.taskId, r.k, r.n, r.bin]),
    [
      ['p-solved', 8, 8, 4],
      ['p-hopeless', 0, 8, 0],
    ],
  );
  // The same re-probe and seed give the same pool; the seed decides which middle candidates enter.
  assert.deepEqual(swapPool(['p-solved', 'p-mid', 'p-hopeless'], groupByTask(reprobe), { seed: 3 }), swapped);
  const entrants = new Set<string>();
  for (let seed = 0; seed < 20; seed++)
    for (const id of ids(swapPool(['p-solved', 'p-mid', 'p-hopeless'], groupByTask(reprobe), { seed }).entered))
      entrants.add(id);
  assert.deepEqual([...entrants].sort(), ['c-mid-a', 'c-mid-b', 'c-mid-c']);
});

test('with fewer candidates than leavers the most confident leavers go and the rest stay; never an empty pool', () => {
  const reprobe: ResultRow[] = [
    ...taskRows('p-solved', rewards(8, 8)),
    ...taskRows('p-solved-short', rewards(6, 6)),
    ...taskRows('p-hopeless', rewards(0, 8)),
    ...taskRows('c-mid', rewards(4, 8)),
  ];
  const pool = ['p-hopeless', 'p-solved-short', 'p-solved'];
  const one = swapPool(pool, groupByTask(reprobe), { seed: 0 });
  // Jeffreys mass outside the middle bins: 8/8 0.81 (above 0.9), 0/8 0.76 (below 0.08), 6/6 0.75.
  const outside = (id: string) => {
    const r = one.selection.records.find((x) => x.taskId === id)!;
    return 1 - r.masses[1]! - r.masses[2]! - r.masses[3]!;
  };
  assert.ok(outside('p-solved') > outside('p-hopeless') && outside('p-hopeless') > outside('p-solved-short'));
  assert.deepEqual(ids(one.left), ['p-solved']);
  assert.deepEqual(ids(one.entered), ['c-mid']);
  assert.deepEqual(ids(one.unreplaced), ['p-hopeless', 'p-solved-short']);
  assert.deepEqual(one.pool, ['c-mid', 'p-hopeless', 'p-solved-short']);

  // No candidate in the middle: the pool stays as it is, even when every task in it left the middle.
  const none = swapPool(pool, groupByTask(reprobe.filter((r) => r.taskId !== 'c-mid')), { seed: 0 });
  assert.deepEqual(none.pool, [...pool].sort());
  assert.deepEqual(none.left, []);
  assert.equal(none.unreplaced.length, 3);
});

test('a pool task without an outcome stays, and candidates outside the training domains never enter', () => {
  const reprobe: ResultRow[] = [
    ...taskRows('p-solved', rewards(8, 8)),
    row('p-broken', 0, 0, { error: 'infra' }),
    ...taskRows('c-other-domain', rewards(4, 8), { domain: 'd2' }),
    ...taskRows('c-same-domain', rewards(4, 8)),
  ];
  const swapped = swapPool(['p-solved', 'p-broken', 'p-unprobed'], groupByTask(reprobe), {
    seed: 1,
    domains: ['d1'],
  });
  assert.deepEqual(ids(swapped.left), ['p-solved']);
  assert.deepEqual(ids(swapped.entered), ['c-same-domain']);
  assert.deepEqual(swapped.pool, ['c-same-domain', 'p-broken', 'p-unprobed']);
  const across = swapPool(['p-solved'], groupByTask(reprobe), { seed: 1 });
  assert.equal(across.entered.length, 1, 'without a domain filter either middle candidate may enter');
});

test('the kept bins are the selection config’s: a wider keep swaps nothing out', () => {
  const reprobe = [...taskRows('p-solved', rewards(8, 8)), ...taskRows('c-mid', rewards(4, 8))];
  const swapped = swapPool(['p-solved'], groupByTask(reprobe), { seed: 0, keep: [1, 2, 3, 4] });
  assert.deepEqual(swapped.pool, ['p-solved']);
  assert.deepEqual(swapped.left, []);
});

test("the report's pool section lists every version: the tasks out and in, each with its re-probe's k/n", () => {
  const reprobe = [...taskRows('p-solved', rewards(8, 8)), ...taskRows('c-mid', rewards(4, 8))];
  const swapped = swapPool(['p-solved'], groupByTask(reprobe), { seed: 0 });
  const history = [
    { version: 0, step: 0, size: 1, probeResultSet: 'c/probe', uri: 'file:///p', left: [], entered: [], unreplaced: 0 },
    {
      version: 1,
      step: 12,
      size: 1,
      probeResultSet: 'c/reprobe-step-12',
      uri: 'file:///q',
      left: swapped.left.map(poolChangeOf),
      entered: swapped.entered.map(poolChangeOf),
      unreplaced: 0,
    },
  ];
  const text = renderText(poolVersionsTable(history));
  assert.match(text, /Pool versions: 1 re-probes, 1 tasks swapped/);
  assert.match(text, /1\s+12\s+1\s+p-solved 8\/8\s+c-mid 4\/8\s+0/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pack } from '../src/index.js';

const options = { seed: 1, split: 'train' as const, profile: 'full' as const, count: 300 };

test('the generator is deterministic and covers every task type', () => {
  const tasks = pack.generateTasks(options);
  assert.deepEqual(pack.generateTasks(options), tasks);
  assert.equal(new Set(tasks.map((t) => t.id)).size, tasks.length);
  assert.deepEqual(new Set(tasks.map((t) => t.tags?.[0])), new Set(['rental_info', 'extend_rental', 'extend_refused']));
});

test('every golden call names a tool of the pack, and every invariant holds', () => {
  const names = new Set(pack.tools.map((t) => t.name));
  for (const task of [...pack.generateTasks(options), ...pack.generateTasks({ ...options, split: 'eval' })]) {
    for (const call of task.golden) assert.ok(names.has(call.tool), `${task.id}: ${call.tool}`);
    for (const invariant of pack.invariants ?? [])
      assert.equal(invariant.check(task) ?? undefined, undefined, `${task.id}: ${invariant.name}`);
  }
});

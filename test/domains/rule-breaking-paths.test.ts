import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retail } from '../../domains/retail/index.js';
import { travel } from '../../domains/travel/index.js';

// The retail and travel paths as pure functions of generated tasks (the episodes are played in rule-breaking.test.ts).
const cases = [
  { pack: retail, without: ['cancel_order', 'cancel_refused', 'address_change', 'address_change_refused'] },
  { pack: travel, without: ['flight_cancel_refundable', 'seat_change'] },
];

for (const { pack, without } of cases)
  test(`${pack.name}: paths are the golden reads plus writes whose ids all come from the task`, () => {
    const mini = pack.generateTasks({ seed: 5, split: 'train', profile: 'mini', count: 120 });
    const families = new Set<string>();
    for (const task of mini) {
      const calls = pack.ruleBreakingPath!(task);
      if (!calls) continue;
      families.add(task.tags![0]!);
      assert.deepEqual(calls[0], task.golden[0], `${task.id}: starts with the golden lookup`);
      assert.notDeepEqual(calls, task.golden, `${task.id}: differs from the golden calls`);
      const stated = JSON.stringify([task.query, task.init, task.golden]);
      for (const call of calls)
        for (const value of Object.values(call.arguments))
          if (typeof value === 'string' && /^[A-Z]{3}-/.test(value))
            assert.ok(stated.includes(value), `${task.id}: ${call.tool} names ${value}, which the task does not`);
    }
    for (const family of without) assert.ok(!families.has(family), `${family} has no rule-breaking path`);
    assert.ok(families.size >= 4, [...families].join(', '));
    const full = pack.generateTasks({ seed: 5, split: 'train', profile: 'full', count: 60 });
    assert.deepEqual(
      full.filter((t) => pack.ruleBreakingPath!(t)),
      [],
      'full-profile tasks have no path',
    );
  });

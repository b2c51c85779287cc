import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DomainDefinition } from '../../environment/domain.js';
import { ruleBreakingPlan } from '../../runtime/demonstrations/rule-breaking.js';
import type { Task } from '../../schemas/task.js';

const task = (id: string, family: string, split: 'train' | 'eval' = 'train') =>
  ({ id, domain: 'shop', split, profile: 'mini', tags: [family], golden: [] }) as unknown as Task;
const shop = {
  name: 'shop',
  ruleBreakingPath: (t: Task) => (t.tags[0] === 'refund' ? [{ tool: 'refund', arguments: { id: t.id } }] : undefined),
} as unknown as DomainDefinition;

test('the share is taken in every family that has a path, by id hash, and never of eval tasks', () => {
  const refunds = Array.from({ length: 10 }, (_, i) => task(`refund-${i}`, 'refund'));
  const tasks = [...refunds, ...Array.from({ length: 10 }, (_, i) => task(`status-${i}`, 'status'))];
  const plan = ruleBreakingPlan(tasks, [shop], 0.3);
  assert.equal(plan.size, 3);
  assert.ok([...plan.keys()].every((id) => id.startsWith('refund-')));
  assert.deepEqual(plan.get([...plan.keys()][0]!), [{ tool: 'refund', arguments: { id: [...plan.keys()][0] } }]);
  // The choice depends on the ids, not on their order in the file.
  assert.deepEqual([...ruleBreakingPlan([...tasks].reverse(), [shop], 0.3).keys()].sort(), [...plan.keys()].sort());
  assert.equal(ruleBreakingPlan(tasks, [shop], 0).size, 0);
  assert.equal(ruleBreakingPlan(tasks, [shop], 1).size, 10);
  assert.equal(ruleBreakingPlan([task('refund-x', 'refund', 'eval')], [shop], 1).size, 0);
  assert.throws(() => ruleBreakingPlan(tasks, [shop], 1.5), /within \[0, 1\]/);
});

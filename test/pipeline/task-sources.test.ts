import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listSourceTasks, manifestTaskLister } from '../../activities/tasks.js';
import { readTaskSet } from '../../environment/task-set.js';
import { fromRoot } from '../../core/paths.js';
import { TaskCatalog } from '../../runtime/episode/task-catalog.js';

const typeOf = (tags: string[], taskId: string) => taskId.split('.')[3] ?? tags[0];

test('a directory task source reads every task set in it and its sub-folders: one per domain, split and profile filtered', async () => {
  const tasks = await listSourceTasks(manifestTaskLister, {
    taskSet: fromRoot('tasks'),
    split: 'eval',
    profile: 'mini',
  });
  const sizes = ['retail', 'travel', 'insurance', 'neobank', 'consulting'].map(
    (name) => readTaskSet(fromRoot('tasks', name, `${name}-eval-mini.jsonl`)).tasks.length,
  );
  assert.equal(
    tasks.length,
    sizes.reduce((a, b) => a + b, 0),
  );
  assert.deepEqual([...new Set(tasks.map((t) => t.domain))].sort(), [
    'consulting',
    'insurance',
    'neobank',
    'retail',
    'travel',
  ]);
  assert.ok(tasks.every((t) => t.split === 'eval' && t.taskId.includes('.mini.')));
  assert.deepEqual(
    tasks.map((t) => t.taskId),
    [...tasks.map((t) => t.taskId)].sort(),
    'sorted by id',
  );
});

test('limit keeps at most N tasks of each set and every task type of the set, in file order within a type', async () => {
  const full = readTaskSet(fromRoot('tasks', 'retail', 'retail-eval-mini.jsonl')).tasks;
  const types = [...new Set(full.map((t) => t.tags[0]))];
  const limit = types.length + 3;
  const tasks = await listSourceTasks(manifestTaskLister, {
    taskSet: fromRoot('tasks'),
    split: 'eval',
    profile: 'mini',
    limit,
  });
  const retail = tasks.filter((t) => t.domain === 'retail');
  assert.equal(retail.length, limit);
  assert.equal(tasks.filter((t) => t.domain === 'travel').length, limit);
  assert.deepEqual(new Set(retail.map((t) => typeOf(t.tags, t.taskId))), new Set(types), 'every task type stays');
  for (const type of types) {
    const firstOfType = full
      .filter((t) => t.tags[0] === type)
      .slice(0, retail.filter((t) => typeOf(t.tags, t.taskId) === type).length)
      .map((t) => t.id);
    assert.deepEqual(
      retail
        .filter((t) => typeOf(t.tags, t.taskId) === type)
        .map((t) => t.taskId)
        .sort(),
      firstOfType.sort(),
      `${type}: the first tasks of the type`,
    );
  }
  // An even stride (every other task) over this generator's round-robin of types would keep only half of them.
  const everyOther = full.filter((_, i) => i % 2 === 0);
  assert.ok(
    new Set(everyOther.map((t) => t.tags[0])).size < types.length,
    'the aliasing this sampling avoids is real for this set',
  );
});

test('the runtime catalog finds a task by id in a directory source, and names the source when it is absent', () => {
  const catalog = new TaskCatalog();
  const some = readTaskSet(fromRoot('tasks', 'travel', 'travel-eval-mini.jsonl')).tasks[5]!;
  assert.equal(catalog.get(fromRoot('tasks'), some.id).id, some.id);
  assert.throws(() => catalog.get(fromRoot('pools', 'rl-pool'), some.id), /is not in task set .*rl-pool/);
});

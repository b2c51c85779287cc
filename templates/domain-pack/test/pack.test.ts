import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invariantViolations, type Profile, type Split } from 'finalstate/domain';
import { pack } from '../src/index.js';

const splits: Split[] = ['train', 'eval'];
const profiles: Profile[] = ['full', 'mini'];
const options = { seed: 1, split: 'train' as const, profile: 'full' as const, count: 300 };
const every = () =>
  splits.flatMap((split) => profiles.flatMap((profile) => pack.generateTasks({ ...options, split, profile })));

test('the generator is deterministic and covers every task type in both profiles', () => {
  const tasks = pack.generateTasks(options);
  assert.deepEqual(pack.generateTasks(options), tasks);
  assert.equal(new Set(every().map((t) => t.id)).size, every().length);
  for (const profile of profiles)
    assert.deepEqual(
      new Set(pack.generateTasks({ ...options, profile }).map((t) => t.tags?.[0])),
      new Set(['rental_info', 'extend_rental', 'extend_refused']),
    );
});

test('every golden call names a tool of its profile', () => {
  for (const task of every()) {
    const offered = new Set(pack.profileTools[task.profile] ?? []);
    for (const call of task.golden) assert.ok(offered.has(call.tool), `${task.id}: ${call.tool}`);
  }
});

test("the built-in invariants and the pack's own hold (what `finalstate tasks check` runs)", () => {
  assert.deepEqual(invariantViolations(pack, every()), []);
});

test('a refusal has a rule-breaking path: the same look-up, then the extension the policy forbids', () => {
  const refusal = pack.generateTasks({ ...options, profile: 'mini' }).find((t) => t.tags?.[0] === 'extend_refused')!;
  const path = pack.ruleBreakingPath!(refusal)!;
  assert.deepEqual(path.slice(0, -1), refusal.golden);
  assert.equal(path.at(-1)!.tool, 'extend_rental');
});

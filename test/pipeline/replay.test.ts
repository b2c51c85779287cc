import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from '@temporalio/worker';
import { sharedWorkflowBundle } from '../../testkit/pipeline/bundle.js';
import { loadHistories } from './histories.js';

// Histories recorded from real runs (test/pipeline/record-histories.ts) replayed against today's workflow code:
// a change that would make a running campaign non-deterministic fails here.
test('recorded campaign, probe, evaluation and GRPO step histories replay deterministically', async () => {
  const histories = loadHistories();
  const types = new Set(histories.map((h) => h.workflowType));
  assert.deepEqual([...types].sort(), ['campaign', 'evaluation', 'grpoStep', 'probe']);
  const workflowBundle = await sharedWorkflowBundle();
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) {
    assert.equal(result.error, undefined, `${result.workflowId}: ${result.error?.message}`);
    replayed += 1;
  }
  assert.equal(replayed, histories.length);
  assert.ok(replayed >= 9);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TimeoutFailure } from '@temporalio/common';
import { describeFailure, failureParts } from '../../core/failure-causes.js';

// The one text of a failure (core/failure-causes.ts), on the chains Temporal builds: what an activity threw, inside
// its ActivityFailure, inside a child's ChildWorkflowFailure, inside the client's WorkflowFailedError. The stack tests
// see the same chains end to end (step-failure-causes.test.ts, lora-adapters.test.ts).

const incomplete = ApplicationFailure.create({
  type: 'IncompleteCheckpoint',
  nonRetryable: true,
  message:
    'not publishing policy version 2: checkpoint /c/step-000002: model.safetensors has 30 bytes but its header covers 60 (truncated). Remove the directory and replay the step.',
  // What the activity threw, converted: its message is already in the one above.
  cause: ApplicationFailure.create({
    type: 'IncompleteCheckpointError',
    message: 'checkpoint /c/step-000002: model.safetensors has 30 bytes but its header covers 60 (truncated)',
  }),
});
const activity = (
  cause: Error,
  retryState: 'NON_RETRYABLE_FAILURE' | 'MAXIMUM_ATTEMPTS_REACHED' = 'NON_RETRYABLE_FAILURE',
) => new ActivityFailure('Activity task failed', 'publishPolicy', '12', retryState, 'worker', cause);
const child = (cause: Error) =>
  new ChildWorkflowFailure(
    'default',
    { workflowId: 'c/step-2', runId: 'r' },
    'grpoStep',
    'RETRY_POLICY_NOT_SET',
    cause,
  );

test("a step's failure: the child, the activity and how its retries ended, the type and the message with its guidance, once", () => {
  assert.deepEqual(failureParts(child(activity(incomplete))), [
    'workflow grpoStep c/step-2',
    'activity publishPolicy (not retried)',
    'IncompleteCheckpoint: not publishing policy version 2: checkpoint /c/step-000002: model.safetensors has 30 bytes but its header covers 60 (truncated). Remove the directory and replay the step.',
  ]);
});

test("Temporal's wrappers that say nothing are left out; the client's too", () => {
  const text = describeFailure(
    new WorkflowFailedError('Workflow execution failed', child(activity(incomplete)), 'NON_RETRYABLE_FAILURE'),
  );
  assert.doesNotMatch(text, /Activity task failed|Child Workflow execution failed|Workflow execution failed/);
  assert.equal(text, describeFailure(child(activity(incomplete))));
});

test('a wrapper that quotes its cause says it once; one that adds to it keeps both', () => {
  // The campaign fails with the described failure as its message, its cause the original: nothing said twice.
  const whole = describeFailure(child(activity(incomplete)));
  const campaign = ApplicationFailure.create({
    type: 'IncompleteCheckpoint',
    message: whole,
    cause: child(activity(incomplete)),
  });
  assert.equal(describeFailure(campaign), whole);
  // An error whose cause says something it does not: both, outermost first.
  const outer = new Error('policy server http://a could not load adapter x-v2', {
    cause: new Error('socket hang up'),
  });
  assert.equal(describeFailure(outer), 'policy server http://a could not load adapter x-v2: socket hang up');
});

test('retries exhausted, a timeout, an untyped error, an error that is not an Error', () => {
  const outage = ApplicationFailure.create({
    type: 'Infrastructure',
    message: 'policy version 2 serves on 0 of 1 rollout servers',
  });
  assert.equal(
    describeFailure(activity(outage, 'MAXIMUM_ATTEMPTS_REACHED')),
    'activity publishPolicy (retries exhausted): Infrastructure: policy version 2 serves on 0 of 1 rollout servers',
  );
  const timeout = new ActivityFailure(
    'Activity task timed out',
    'policyUpdate',
    '3',
    'TIMEOUT',
    'w',
    new TimeoutFailure('Activity task timed out', undefined, 'HEARTBEAT'),
  );
  assert.equal(describeFailure(timeout), 'activity policyUpdate (out of time for retries): timed out (HEARTBEAT)');
  assert.equal(describeFailure(ApplicationFailure.create({ message: 'plain' })), 'plain');
  assert.equal(describeFailure(new TypeError('x is undefined')), 'TypeError: x is undefined');
  assert.equal(describeFailure('a string'), 'a string');
});

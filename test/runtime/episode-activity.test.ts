import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createEpisodeActivities } from '../../activities/episode.js';
import { InfrastructureError } from '../../core/errors.js';
import { FailureType } from '../../core/failure-types.js';
import { AssertionQueryError } from '../../environment/sql-assertions.js';
import type { EpisodeHooks, EpisodeRunner } from '../../runtime/episode/runner.js';
import { EpisodeRequest } from '../../schemas/episode.js';

// The runEpisode activity over a stand-in runner: how the failures the runner raises reach Temporal, and how Temporal's
// cancellation of an attempt reaches the runner.
const request = EpisodeRequest.parse({
  episodeId: 'activity-test/e1',
  taskId: 't1',
  taskSet: 'tasks',
  trial: 0,
  policy: { kind: 'oracle' },
  seed: 1,
});

/** A runner that waits for its attempt's cancellation and fails with its reason, as the agent loop does. */
class WaitingRunner implements EpisodeRunner {
  hooks?: EpisodeHooks;
  run(_request: EpisodeRequest, hooks: EpisodeHooks = {}) {
    this.hooks = hooks;
    return new Promise<never>((_, reject) => {
      hooks.onTurn?.(0);
      hooks.signal!.addEventListener('abort', () => reject(hooks.signal!.reason), { once: true });
    });
  }
}

test('an assertion whose query is wrong ends the activity as a malformed task, not retried', async () => {
  const { runEpisode } = createEpisodeActivities({
    runner: {
      run: async () => {
        throw new AssertionQueryError(2, 'wrong', 'column "x" does not exist (SQLSTATE 42703)', 't1');
      },
    },
  });
  await assert.rejects(new MockActivityEnvironment().run(runEpisode, request), (err: unknown) => {
    assert.ok(err instanceof ApplicationFailure, String(err));
    assert.equal(err.type, FailureType.malformedTask);
    assert.equal(err.nonRetryable, true);
    assert.match(err.message, /assertions\[2\] \(wrong\): the query fails/);
    return true;
  });
});

test('the runner gets the attempt number, which fences the episode database', async () => {
  const runner = new WaitingRunner();
  const env = new MockActivityEnvironment({ attempt: 3 });
  const running = env.run(createEpisodeActivities({ runner }).runEpisode, request);
  running.catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(runner.hooks?.attempt, 3);
  env.cancel('CANCELLED');
  await assert.rejects(running);
});

for (const reason of ['TIMED_OUT', 'NOT_FOUND', 'WORKER_SHUTDOWN'] as const)
  test(`Temporal giving up on the attempt (${reason}) reaches the runner as an InfrastructureError: the database is kept for the retry`, async () => {
    const runner = new WaitingRunner();
    const env = new MockActivityEnvironment();
    const running = env.run(createEpisodeActivities({ runner }).runEpisode, request);
    running.catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    env.cancel(reason);
    await assert.rejects(running, (err: unknown) => {
      assert.ok(err instanceof ApplicationFailure, String(err));
      assert.equal(err.type, FailureType.infrastructure);
      assert.match(err.message, new RegExp(`given up \\(${reason}\\)`));
      return true;
    });
    assert.ok(runner.hooks!.signal!.reason instanceof InfrastructureError);
  });

test('a cancellation by the workflow (a surplus group) stays a cancellation: the episode ends', async () => {
  const runner = new WaitingRunner();
  const env = new MockActivityEnvironment();
  const running = env.run(createEpisodeActivities({ runner }).runEpisode, request);
  running.catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
  env.cancel('CANCELLED');
  await assert.rejects(running, (err: unknown) => err instanceof CancelledFailure);
  assert.ok(!(runner.hooks!.signal!.reason instanceof InfrastructureError));
});

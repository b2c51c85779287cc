import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createEpisodeActivities } from '../../activities/episode.js';
import { InfrastructureError, UserError } from '../../core/errors.js';
import type { EpisodeRunner } from '../../runtime/episode/runner.js';
import { EpisodeRetryConfig } from '../../schemas/campaign.js';
import { EpisodeOutcome, type EpisodeRequest } from '../../schemas/episode.js';
import type { EvaluationSummary, TaskInfo } from '../../schemas/pipeline.js';
import type { StoreRowsInput } from '../../storage/results.js';
import { sharedWorkflowBundle } from '../../testkit/pipeline/bundle.js';
import { oracleSettings } from '../../testkit/pipeline/oracle-episodes.js';
import { evaluation } from '../../workflows/evaluation.js';
import { installWorkerRuntime } from '../../workers/temporal-worker.js';
import { uniqueName } from '../helpers/index.js';
import { timeSkippingEnvironment } from '../helpers/time-skipping.js';

// Temporal's retry policy for episodes, as the workflows configure it from the campaign, on the time-skipping test
// server: with the schema's default retry (10 attempts, 1 s backoff doubling to 10 s: 65 s of backoff) an episode
// whose backend keeps timing out takes over a minute of real time on the dev server; here Temporal's clock skips it.
// The real evaluation workflow fans out (workflows/sweep.ts -> workflows/episodes.ts) to the real episode activity
// (activities/episode.ts), whose runner is a STAND-IN that throws what the real one throws: an InfrastructureError
// (a backend timeout: retried, never scored) or a UserError (a malformed task: not retried, no row). The result rows
// and metrics activities are stand-ins too (no control database on the test server's side of things).
// Not here: a heartbeat timeout. The test server holds its clock while an activity runs (measured: a silent attempt
// kept it moving at real speed), so a worker that goes silent is a real-time test: zombie-worker.test.ts,
// resume-worker.test.ts (SIGSTOP, SIGKILL and a partition of real processes, with a 6 s heartbeat timeout).

const retry = EpisodeRetryConfig.parse({});
const queues = { control: uniqueName('ts-control'), episodes: uniqueName('ts-episodes'), gpu: uniqueName('ts-gpu') };
// Tasks of mixed domains and splits: the workflow then sets no search attribute (the test server registers none).
const tasks: TaskInfo[] = [
  { taskId: 'times-out-once', domain: 'retail', split: 'eval', tags: [] },
  { taskId: 'times-out-always', domain: 'travel', split: 'train', tags: [] },
  { taskId: 'malformed', domain: 'neobank', split: 'eval', tags: [] },
  { taskId: 'answers', domain: 'insurance', split: 'eval', tags: [] },
];

let env: TestWorkflowEnvironment;
const attempts: Record<string, number[]> = {};
/** When each attempt of the episode that never gets through ran, on Temporal's clock (ms). */
const ranAt: number[] = [];
const stored: StoreRowsInput['rows'] = [];

const none = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
const runner: EpisodeRunner = {
  async run(request: EpisodeRequest, hooks) {
    const attempt = hooks?.attempt ?? 1;
    (attempts[request.taskId] ??= []).push(attempt);
    if (request.taskId === 'times-out-always') ranAt.push(await env.currentTimeMs());
    if (request.taskId === 'malformed') throw new UserError('the expected state names a table the pack lacks');
    if (request.taskId === 'times-out-always' || (request.taskId === 'times-out-once' && attempt === 1))
      throw new InfrastructureError('backend provisioning timed out', 'backend');
    const task = tasks.find((t) => t.taskId === request.taskId)!;
    return EpisodeOutcome.parse({
      ...task,
      trial: request.trial,
      reward: 1,
      error: null,
      usage: { agent: none, user: none, judge: none },
      costUsd: 0,
      campaignId: request.campaignId,
      episodeId: request.episodeId,
      finishReason: 'agent_done',
      trainable: true,
    });
  },
};

const control = {
  async listTasks(): Promise<TaskInfo[]> {
    return tasks;
  },
  async storeResultRows(input: StoreRowsInput): Promise<{ stored: number }> {
    stored.push(...input.rows);
    return { stored: input.rows.length };
  },
  async evaluationMetrics(): Promise<{ metrics: EvaluationSummary; metricsUri: string }> {
    const scored = stored.filter((r) => r.row.error === null);
    const metrics: EvaluationSummary = {
      tasks: tasks.length,
      attempts: scored.length,
      pass1: scored.filter((r) => r.row.reward === 1).length / scored.length,
      pass1Low: 0,
      pass1High: 1,
      passAtK: 1,
      passedKK: 0,
      excludedInfra: stored.length - scored.length,
    };
    return { metrics, metricsUri: 'memory://metrics.json' };
  },
};

before(async () => {
  process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR'; // each failed attempt is a WARN otherwise
  installWorkerRuntime();
  env = await timeSkippingEnvironment();
});
after(async () => {
  await env?.teardown();
});

test("an episode's backend timeouts are retried with the campaign's backoff: a later attempt is scored, one that never gets through is an infrastructure row, a malformed task is not retried", async (t) => {
  const controlWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: queues.control,
    workflowBundle: await sharedWorkflowBundle(),
    activities: control,
  });
  const episodeWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: queues.episodes,
    activities: createEpisodeActivities({ runner }),
  });
  const realStart = Date.now();
  const result = await episodeWorker.runUntil(
    controlWorker.runUntil(
      env.client.workflow.execute(evaluation, {
        taskQueue: queues.control,
        workflowId: uniqueName('ts-eval'),
        args: [
          {
            campaignId: 'time-skipping',
            resultSet: 'time-skipping/eval-0',
            step: 0,
            source: { taskSet: 'stand-in', split: 'eval' },
            k: 1,
            window: 4,
            settings: oracleSettings(queues, retry),
          },
        ],
      }),
    ),
  );
  const realSeconds = (Date.now() - realStart) / 1000;
  const backoffs = ranAt.slice(1).map((at, i) => (at - ranAt[i]!) / 1000);
  t.diagnostic(
    `backoffs on Temporal's clock ${backoffs.map((b) => b.toFixed(1)).join(', ')} s (${backoffs.reduce((a, b) => a + b, 0).toFixed(1)} s) in ${realSeconds.toFixed(1)} s of real time; attempts ${JSON.stringify(attempts)}`,
  );

  assert.deepEqual(attempts['answers'], [1]);
  assert.deepEqual(attempts['times-out-once'], [1, 2]);
  assert.deepEqual(
    attempts['times-out-always'],
    Array.from({ length: retry.maxAttempts }, (_, i) => i + 1),
    'every attempt the retry policy allows',
  );
  assert.deepEqual(attempts['malformed'], [1], 'a malformed task is not retried');
  assert.deepEqual(result.malformed, ['malformed']);
  assert.deepEqual(result.episodes, { done: 3, infraFailed: 1 });
  const rows = Object.fromEntries(stored.map((r) => [r.row.taskId, r.row]));
  assert.deepEqual(Object.keys(rows).sort(), ['answers', 'times-out-always', 'times-out-once'], 'no row for malformed');
  assert.deepEqual(
    [rows['times-out-once']!.reward, rows['times-out-once']!.error],
    [1, null],
    'scored when it got through',
  );
  assert.equal(rows['times-out-always']!.error, 'infra', 'never scored: an infrastructure row');
  assert.equal(result.metrics.excludedInfra, 1);
  // The campaign's backoff between the ten attempts (1 s doubling, at most 10 s), on Temporal's clock.
  const expected = [1, 2, 4, 8, 10, 10, 10, 10, 10];
  assert.equal(backoffs.length, expected.length);
  backoffs.forEach((b, i) => assert.ok(b >= expected[i]! && b < expected[i]! + 1, `backoff ${i + 1}: ${b} s`));
});

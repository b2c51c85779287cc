import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { readTrainingBatch } from '../../storage/training-batch.js';
import { FailureType } from '../../core/failure-types.js';
import { evaluation } from '../../workflows/evaluation.js';
import { grpoStep } from '../../workflows/grpo-step.js';
import { episodeSettings, grpoStepInput } from '../../workflows/inputs.js';
import { startEpisodeWorker } from '../../workers/episodes.js';
import { freePort, uniqueName } from '../helpers/index.js';
import { startPipeline, task, type Pipeline } from '../../testkit/pipeline/harness.js';
import { SeededRandomEpisodeRunner } from '../../testkit/pipeline/seeded-random-runner.js';

// GRPO steps run directly as workflows, with the seeded random stand-in runner (test/pipeline/seeded-random-runner.ts)
// standing in for the agent loop, and the stand-in gpu worker for the Python trainer.
const tasks = [
  task('always-pass', 1),
  task('half-a', 0.5),
  task('half-b', 0.5),
  task('half-c', 0.5),
  task('never-pass', 0),
  task('e-1', 0.5, 'eval'),
];
let p: Pipeline;
const outages = new Map<string, number>();

before(async () => {
  p = await startPipeline(tasks, { outages });
});
after(async () => {
  await p?.close();
});

async function activityAttempts(workflowId: string): Promise<Map<string, number>> {
  const history = await p.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<number, string>();
  const attempts = new Map<string, number>();
  for (const event of history.events ?? []) {
    const s = event.activityTaskScheduledEventAttributes;
    if (s?.activityId) scheduled.set(Number(event.eventId), s.activityId);
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const id = scheduled.get(Number(started.scheduledEventId))!;
      attempts.set(id, started.attempt ?? 1);
    }
  }
  return attempts;
}

test('DAPO: a group whose rewards are all equal is replaced by a fresh task, and the replacement is counted', async () => {
  const config = p.campaignConfig({ groupsPerStep: 4, rolloutsPerGroup: 4, maxReplacementRounds: 4, seed: 11 });
  const input = grpoStepInput(
    config,
    { pool: ['always-pass', 'half-a', 'half-b', 'half-c'], sampler: { epoch: 0, cursor: 0 } },
    1,
  );
  const workflowId = `${config.campaignId}/step-1`;
  const result = await p.client.workflow.execute(grpoStep, { taskQueue: p.queues.control, workflowId, args: [input] });

  assert.ok(result.replacements >= 1, `replacements ${result.replacements}`);
  assert.equal(
    result.zeroVarianceGroups,
    result.replacements,
    'every zero-variance group was replaced (rounds were left)',
  );
  assert.equal(result.groupsUsed, 4);
  for (const rewards of result.rewards)
    assert.ok(new Set(rewards).size === 2, `used group has both rewards: ${rewards.join('')}`);
  assert.ok(result.summary.informativeFraction < 1 && result.summary.informativeFraction > 0);
  assert.equal(result.summary.replacements, result.replacements);

  // The always-pass group was observed (its rows are stored, all 1), then left out of the batch.
  const rows = await p.rows(workflowId);
  const alwaysRows = rows.filter((r) => r.task_id === 'always-pass');
  assert.ok(alwaysRows.length >= 4 && alwaysRows.every((r) => r.reward === 1));
  const batch = await readTrainingBatch(result.batchUri);
  assert.ok(batch.episodes.every((e) => e.taskId !== 'always-pass'));
  assert.equal(new Set(batch.episodes.map((e) => e.groupId)).size, 4);
  // Replacement groups got fresh readable activity ids after g0..g3.
  const attempts = await activityAttempts(workflowId);
  assert.ok(attempts.has('g4-t0') && attempts.has('g3-t3'));
  assert.ok(!attempts.has(`g${4 + result.replacements}-t0`), 'exactly one new group per replacement');
});

test('an infrastructure outage: a failed attempt is retried; a group whose episode keeps failing is refilled, never scored 0', async () => {
  // Real time on the dev server: its retry backoff (50-100 ms) is shorter than the time-skipping server's start.
  const config = p.campaignConfig({
    groupsPerStep: 2,
    rolloutsPerGroup: 4,
    maxReplacementRounds: 2,
    seed: 5,
    episodes: { maxAttempts: 3, initialInterval: '50ms', maximumInterval: '100ms', heartbeatTimeout: '30s' },
  });
  const workflowId = `${config.campaignId}/step-1`;
  outages.set(`${workflowId}/g0-t1`, 1); // transient: the second attempt succeeds
  outages.set(`${workflowId}/g1-t2`, Infinity); // outlasts the retries: group 1 is refilled
  const input = grpoStepInput(config, { pool: ['half-a', 'half-b', 'half-c'], sampler: { epoch: 0, cursor: 0 } }, 1);
  const result = await p.client.workflow.execute(grpoStep, { taskQueue: p.queues.control, workflowId, args: [input] });

  assert.equal(result.refills, 1);
  assert.equal(result.summary.infraFailures, 1, 'one episode ended without an outcome');
  assert.equal(result.episodes.infraFailed, 1);
  assert.equal(p.runner.attempts.get(`${workflowId}/g0-t1`), 2, 'the transient failure was retried once');
  assert.equal(p.runner.attempts.get(`${workflowId}/g1-t2`), 3, 'the persistent failure used every attempt');
  const attempts = await activityAttempts(workflowId);
  assert.equal(attempts.get('g0-t1'), 2);
  assert.ok(attempts.has('g2-t0'), 'a fresh group refilled the lost one');

  const rows = await p.rows(workflowId);
  assert.ok(!rows.some((r) => r.episode_id.endsWith('/g1-t2')), 'the failed episode has no row, so no reward of 0');
  const batch = await readTrainingBatch(result.batchUri);
  assert.deepEqual(
    [...new Set(batch.episodes.map((e) => e.groupId))].sort(),
    ['g0', 'g2'],
    'the refilled group is not trained on',
  );
  assert.ok(
    batch.episodes.some((e) => e.episodeId.endsWith('/g0-t1')),
    'the retried episode kept its outcome',
  );
});

test('a publish failing on one of two rollout servers ejects it and the step goes on (fleet.minServers 1)', async () => {
  const dead = `http://127.0.0.1:${await freePort()}`; // nothing listens: connection refused
  const config = p.campaignConfig({
    groupsPerStep: 2,
    rolloutsPerGroup: 4,
    maxReplacementRounds: 4,
    seed: 5,
    policyServers: [
      { url: p.policyServer.url, kind: 'finalstate' },
      { url: dead, kind: 'finalstate' },
    ],
    fleet: { minServers: 1 },
  });
  const input = grpoStepInput(config, { pool: ['half-a', 'half-b', 'half-c'], sampler: { epoch: 0, cursor: 0 } }, 1);
  const workflowId = `${config.campaignId}/step-1`;
  const result = await p.client.workflow.execute(grpoStep, { taskQueue: p.queues.control, workflowId, args: [input] });
  assert.equal(result.policyVersion, '1');
  assert.equal(p.policyServer.version(), 1, 'the live server serves the new version');
  const history = await p.client.workflow.getHandle(workflowId).fetchHistory();
  const types = new Map<number, string>();
  const completed: Record<string, unknown> = {};
  for (const event of history.events ?? []) {
    const s = event.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name) types.set(Number(event.eventId), s.activityType.name);
    const done = event.activityTaskCompletedEventAttributes;
    const type = done && types.get(Number(done.scheduledEventId));
    if (type === 'publishPolicy' || type === 'reconcileFleet')
      completed[type] = defaultPayloadConverter.fromPayload(done!.result!.payloads![0]!);
  }
  const published = completed.publishPolicy as {
    servers: { url: string }[];
    ejected: { url: string; reason: string }[];
  };
  assert.deepEqual(
    published.servers.map((s) => s.url),
    [p.policyServer.url],
  );
  assert.deepEqual(
    published.ejected.map((e) => e.url),
    [dead],
  );
  assert.match(published.ejected[0]!.reason, /unreachable \(ECONNREFUSED\)/);
  const reconciled = completed.reconcileFleet as { servers: { url: string; action: string }[] };
  assert.deepEqual(
    reconciled.servers.map((s) => (s.action === 'ahead' ? 'current' : s.action)),
    ['current', 'unreachable'],
    'the rollouts began with a reconcile: the live server not behind version 0, the dead one left for later',
  );
});

test('maskTruncatedTurns: turns cut off at the token limit leave the loss, the rest of their episode and its reward stay', async () => {
  const runStep = async (maskTruncatedTurns: boolean, truncationPenalty = 0) => {
    const config = p.campaignConfig({
      groupsPerStep: 2,
      rolloutsPerGroup: 4,
      maxReplacementRounds: 4,
      seed: 5,
      update: { baseModel: '/nonexistent/base-model', maskTruncatedTurns, truncationPenalty },
    });
    const input = grpoStepInput(config, { pool: ['half-a', 'half-b', 'half-c'], sampler: { epoch: 0, cursor: 0 } }, 1);
    const result = await p.client.workflow.execute(grpoStep, {
      taskQueue: p.queues.control,
      workflowId: `${config.campaignId}/step-1`,
      args: [input],
    });
    const batch = await readTrainingBatch(result.batchUri);
    return { result, batch };
  };
  const masked = await runStep(true);
  const plain = await runStep(false);

  for (const { result, batch } of [masked, plain]) {
    const failed = batch.episodes.filter((e) => e.reward === 0);
    assert.ok(failed.length > 0 && failed.length < batch.episodes.length, 'the batch has both rewards');
    assert.equal(
      result.summary.truncatedTurns,
      failed.length,
      'one cut-off turn per failed episode of the stand-in runner',
    );
    for (const e of batch.episodes) assert.equal(e.tokenIds.length, e.reward === 0 ? 5 : 3, 'tokens are never dropped');
  }
  for (const e of masked.batch.episodes) {
    assert.deepEqual([...e.lossMask], e.reward === 0 ? [0, 1, 1, 0, 0] : [0, 1, 1], e.episodeId);
    assert.deepEqual([...e.rolloutLogprobs.slice(3)], e.reward === 0 ? [0, 0] : []);
    // Each token's sampling version goes into the batch (the base policy: 0), a masked cut-off turn's too.
    assert.deepEqual([...e.rolloutVersions!], e.reward === 0 ? [-1, 0, 0, 0, 0] : [-1, 0, 0], e.episodeId);
  }
  assert.equal(masked.result.summary.maskedTokens, 2 * masked.result.summary.truncatedTurns!);
  for (const e of plain.batch.episodes)
    assert.deepEqual([...e.lossMask], e.reward === 0 ? [0, 1, 1, 1, 1] : [0, 1, 1], e.episodeId);
  assert.equal(plain.result.summary.maskedTokens, 0);
  // The stand-in trainer saw the masked batch: fewer loss tokens, with every reward kept for the advantages.
  assert.equal(
    masked.result.updateMetrics.tokens,
    plain.result.updateMetrics.tokens! - 2 * plain.result.summary.truncatedTurns!,
  );
});

test('truncationPenalty: a failure with a cut-off turn trains below a clean one; groups and reported rewards stay 0/1', async () => {
  const runStep = async (truncationPenalty: number) => {
    const config = p.campaignConfig({
      groupsPerStep: 2,
      rolloutsPerGroup: 4,
      maxReplacementRounds: 4,
      seed: 5,
      update: { baseModel: '/nonexistent/base-model', truncationPenalty },
    });
    const input = grpoStepInput(config, { pool: ['half-a', 'half-b', 'half-c'], sampler: { epoch: 0, cursor: 0 } }, 1);
    const result = await p.client.workflow.execute(grpoStep, {
      taskQueue: p.queues.control,
      workflowId: `${config.campaignId}/step-1`,
      args: [input],
    });
    const batch = await readTrainingBatch(result.batchUri);
    return { result, batch };
  };
  const penalised = await runStep(0.5);
  const plain = await runStep(0);
  // The stand-in runner cuts off the last turn of every failed episode (5 tokens), never of a passed one (3).
  for (const e of penalised.batch.episodes) assert.equal(e.reward, e.tokenIds.length === 5 ? -0.5 : 1, e.episodeId);
  for (const e of plain.batch.episodes) assert.equal(e.reward, e.tokenIds.length === 5 ? 0 : 1, e.episodeId);
  assert.deepEqual(penalised.result.rewards, plain.result.rewards, 'the 0/1 rewards chose the same groups');
  assert.equal(penalised.result.summary.meanReward, plain.result.summary.meanReward);
});

test('short of informative groups after the replacement rounds: a typed failure, or a partial update when the config allows it', async () => {
  const strict = p.campaignConfig({ groupsPerStep: 2, rolloutsPerGroup: 3, maxReplacementRounds: 1 });
  const pool = { pool: ['always-pass', 'never-pass'], sampler: { epoch: 0, cursor: 0 } };
  const failed = p.client.workflow.execute(grpoStep, {
    taskQueue: p.queues.control,
    workflowId: `${strict.campaignId}/step-1`,
    args: [grpoStepInput(strict, pool, 1)],
  });
  await assert.rejects(failed, (err: unknown) => {
    assert.ok(err instanceof WorkflowFailedError);
    const cause = err.cause as { type?: string; message: string };
    assert.equal(cause.type, FailureType.shortOfInformativeGroups);
    assert.match(cause.message, /0 informative groups of 2 after 1 replacement rounds/);
    return true;
  });

  const partial = p.campaignConfig({
    groupsPerStep: 3,
    rolloutsPerGroup: 4,
    maxReplacementRounds: 0,
    allowPartialUpdate: true,
    seed: 2,
  });
  const mixed = { pool: ['always-pass', 'half-a', 'never-pass'], sampler: { epoch: 0, cursor: 0 } };
  const result = await p.client.workflow.execute(grpoStep, {
    taskQueue: p.queues.control,
    workflowId: uniqueName(`${partial.campaignId}/step-1`),
    args: [grpoStepInput(partial, mixed, 1)],
  });
  assert.ok(result.groupsUsed >= 1 && result.groupsUsed < 3, `partial update on ${result.groupsUsed} groups`);
  assert.equal(result.replacements, 0, 'no rounds were allowed');
  assert.equal(result.zeroVarianceGroups, 3 - result.groupsUsed);
});

test('an episode worker shuts down gracefully: episodes in flight finish before it exits, the rest run on another worker', async () => {
  const queue = uniqueName('pl-episodes-graceful');
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  const slow = new SeededRandomEpisodeRunner({ tasks: byId, artifacts: p.artifacts, turns: 3, turnDelayMs: 250 });
  const first = await startEpisodeWorker(p.config, {
    runner: slow,
    taskQueue: queue,
    concurrency: 2,
    shutdownGraceTime: '20 seconds',
  });
  const config = p.campaignConfig({ taskQueues: { ...p.queues, episodes: queue } });
  const resultSet = `${config.campaignId}/eval-step-0`;
  const handle = await p.client.workflow.start(evaluation, {
    taskQueue: p.queues.control,
    workflowId: resultSet,
    args: [
      {
        campaignId: config.campaignId,
        resultSet,
        step: 0,
        source: config.tasks.train,
        k: 2,
        window: 4,
        settings: episodeSettings(config, config.policy),
      },
    ],
  });
  const deadline = Date.now() + 30_000;
  while (slow.attempts.size < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  await first.stop();
  const ranOnFirst = [...slow.attempts.keys()];
  assert.ok(ranOnFirst.length >= 2);
  for (const id of ranOnFirst)
    assert.equal(slow.turnsReported.get(id), 3, `${id} finished every turn before the worker exited`);

  const fast = new SeededRandomEpisodeRunner({ tasks: byId, artifacts: p.artifacts });
  const second = await startEpisodeWorker(p.config, { runner: fast, taskQueue: queue, concurrency: 4 });
  try {
    const result = await handle.result();
    assert.deepEqual(result.episodes, { done: 5 * 2, infraFailed: 0 });
    assert.equal(ranOnFirst.length + fast.attempts.size, 10, 'every episode ran exactly once');
    assert.ok(
      ranOnFirst.every((id) => !fast.attempts.has(id)),
      'nothing the first worker finished ran again',
    );
  } finally {
    await second.stop();
  }
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { evaluation } from '../../workflows/evaluation.js';
import { uniqueName } from '../helpers/index.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import {
  countEpisodeRows,
  freshEpisodeCounts,
  oracleSettings,
  RESUME_TASK_ID,
  type EpisodeDatabaseCounts,
} from '../../testkit/pipeline/oracle-episodes.js';
import { until, workerProcessFixture, type WorkerProcess, type WorkerProcessFixture } from './worker-processes.js';

// Two live attempts of one episode, for real: an oracle episode of a travel task (three writes) runs on episode worker
// A, a separate OS process (resume-worker.ts: the real DatabaseEpisodeRunner, real PostgreSQL and MCP, the oracle
// slowed per turn) that tears its databases down as production does. Once a write has committed, A is cut off from
// Temporal past the heartbeat timeout, by SIGSTOP (a GC pause) or by a network partition between A and the Temporal
// dev server only (a TCP proxy this test holds; A's PostgreSQL stays reachable), while a second worker B runs.
// Temporal retries the episode on B, which reattaches and resumes; then A comes back and its stalled attempt (a
// zombie) carries on. Required: the zombie writes nothing more, stores nothing and tears nothing down; the retry's
// reward, effects and record are what they would be alone.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
let f: WorkerProcessFixture;
let fresh: EpisodeDatabaseCounts;
const campaigns: string[] = [];
const episodes: string[] = [];

before(async () => {
  f = await workerProcessFixture('zombie');
  fresh = await freshEpisodeCounts(f.config, f.runtime.backend, f.task);
});

after(async () => {
  await f?.close(episodes, campaigns);
});

// one slot: a worker busy with the episode holds no poll open, so Temporal hands the retry to the other one
const startWorker = (turnDelayMs: number, databases: 'keep' | 'teardown', env: NodeJS.ProcessEnv = {}) =>
  f.startWorker([String(turnDelayMs), databases, '1'], env);

/**
 * Runs the episode on worker A, takes A away from Temporal with `isolate` once a write has committed, starts B, waits
 * until B has resumed the episode, gives A back with `restore`, and checks the outcome.
 */
async function zombieEpisode(
  t: { diagnostic(message: string): void },
  label: string,
  worker: { env?: NodeJS.ProcessEnv },
  isolate: (a: WorkerProcess) => Promise<void> | void,
  restore: (a: WorkerProcess) => Promise<void> | void,
) {
  const campaignId = uniqueName(`zombie-${label}`);
  const resultSet = `${campaignId}/eval-0`;
  const episodeId = `${resultSet}/${RESUME_TASK_ID}/t0`;
  campaigns.push(campaignId);
  episodes.push(episodeId);
  const policyTurns = (output: string) =>
    output.split('\n').filter((line) => line.startsWith(`policy-turn ${episodeId} `)).length;
  const settings = oracleSettings(f.queues, {
    maxAttempts: 6,
    initialInterval: '200ms',
    backoffCoefficient: 1,
    maximumInterval: '1s',
    startToCloseTimeout: '3m',
    heartbeatTimeout: '6s',
  });
  const a = await startWorker(2500, 'teardown', worker.env);
  let b: WorkerProcess | undefined;
  try {
    const handle = await f.client.workflow.start(evaluation, {
      taskQueue: f.queues.control,
      workflowId: `${campaignId}/eval`,
      args: [
        { campaignId, resultSet, step: 0, source: { taskSet: f.taskSet, split: 'train' }, k: 1, window: 1, settings },
      ],
    });
    await until('the episode to start on worker A', async () => (policyTurns(a.output()) > 0 ? true : undefined));
    // B polls from now on; A, busy with its one slot, holds no poll open, so the retry can only go to B
    const retrying = await startWorker(1000, 'keep');
    b = retrying;
    // create_ticket is call 2: once the checkpoint counts three turns, a write has committed and its turn is complete.
    const atIsolation = await until('a checkpoint after the first write', async () => {
      const counts = await countEpisodeRows(f.config, episodeId);
      return counts.checkpointTurns !== null && counts.checkpointTurns >= 3 ? counts : undefined;
    });
    await isolate(a);
    const isolatedAt = Date.now();
    await until('the retry to resume on worker B', async () =>
      policyTurns(retrying.output()) > 0 ? true : undefined,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}\nworker A:\n${a.output().slice(-3000)}\nworker B:\n${retrying.output().slice(-3000)}`,
      );
    });
    t.diagnostic(
      `${label}: A isolated with a checkpoint at turn ${atIsolation.checkpointTurns} (${atIsolation.toolCalls.length} calls committed); B resumed after ${Date.now() - isolatedAt} ms`,
    );
    await restore(a);

    const result = await handle.result();
    assert.deepEqual(result.episodes, { done: 1, infraFailed: 0 });
    assert.equal(result.metrics.pass1, 1, 'the retry earned the reward a correct policy earns alone');
    const rows = await f.pool.query<{ reward: number; error: string | null }>(
      'SELECT reward, error FROM campaign_result_rows WHERE result_set = $1',
      [resultSet],
    );
    assert.deepEqual(rows.rows, [{ reward: 1, error: null }]);

    // the episode database survived the zombie and holds each effect once
    const done = await countEpisodeRows(f.config, episodeId);
    assert.deepEqual(
      done.toolCalls.map((c) => [c.callIndex, c.tool]),
      f.task.golden.map((c, i) => [i, c.tool]),
      'one recorded call per golden call, indexed 0..n-1',
    );
    assert.equal(done.tickets, fresh.tickets + 1, 'exactly one ticket row');
    assert.equal(done.refunds, fresh.refunds + 1, 'exactly one refund row');

    // the stored record is the retry's, and says 1
    const record = (await new EpisodeStore(f.pool).load(episodeId))!;
    assert.equal(record.outcome.reward, 1);
    assert.ok(record.resumedAt.length >= 1, 'stored by the attempt that resumed');
    assert.deepEqual(
      record.toolCalls.map((c) => [c.index, c.tool, c.isError]),
      f.task.golden.map((c, i) => [i, c.tool, false]),
      'the agent saw every call answered, none as a tool fault',
    );
    const history = await handle.fetchHistory();
    const attempts = (history.events ?? []).flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 1] : [],
    );
    assert.ok(Math.max(...attempts) >= 2, `episode activity attempts: ${attempts.join(',')}`);

    // the zombie has run into the fence by now, or runs into it at its next write
    const zombieFailure = await until(
      "the zombie's next write",
      async () => a.output().match(new RegExp(`^attempt-failed ${episodeId} .*$`, 'm'))?.[0],
      30_000,
    );
    t.diagnostic(`${label}: A's zombie: ${zombieFailure}`);
    // it stopped at its next write (refused by the fence), or earlier, told by Temporal that its attempt was given up
    assert.match(zombieFailure, /no longer holds the episode|this attempt of the episode was given up/);
  } finally {
    // the next test's episode must find no worker of this one on the queue
    for (const w of [a, b])
      if (w) {
        w.child.kill('SIGCONT');
        await w.stop();
      }
  }
}

test('a worker paused past the heartbeat timeout (SIGSTOP, then SIGCONT: a GC pause) leaves a zombie that writes nothing once the retry resumed', async (t) => {
  // Real time on the dev server, not the time-skipping test server: a real SIGSTOP of a worker process is the point.
  await zombieEpisode(
    t,
    'pause',
    {},
    (a) => void a.child.kill('SIGSTOP'),
    (a) => void a.child.kill('SIGCONT'),
  );
});

test('a worker partitioned from Temporal past the heartbeat timeout (PostgreSQL still reachable) leaves a zombie that writes nothing once the retry resumed', async (t) => {
  // Real time on the dev server, not the time-skipping test server: a real network partition of a worker is the point.
  const proxy = await TcpProxy.start(f.config.temporal.address);
  try {
    await zombieEpisode(
      t,
      'partition',
      { env: { FINALSTATE_TEMPORAL_ADDRESS: proxy.address, TEMPORAL_ADDRESS: proxy.address } },
      () => proxy.cut(),
      () => proxy.heal(),
    );
  } finally {
    await proxy.close();
  }
});

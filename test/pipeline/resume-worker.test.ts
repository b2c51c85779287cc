import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { evaluation } from '../../workflows/evaluation.js';
import { uniqueName } from '../helpers/index.js';
import {
  countEpisodeRows,
  freshEpisodeCounts,
  oracleSettings,
  RESUME_TASK_ID,
  type EpisodeDatabaseCounts,
} from '../../testkit/pipeline/oracle-episodes.js';
import { until, workerProcessFixture, type WorkerProcessFixture } from './worker-processes.js';

// A worker killed mid-episode, for real: the evaluation workflow (control worker in this process, real Temporal dev
// server) runs one oracle episode of a travel task on an episode worker that is a separate OS process
// (resume-worker.ts: the real DatabaseEpisodeRunner, real PostgreSQL and MCP, the oracle slowed per turn). Once a
// write call has committed and its turn is checkpointed, the process gets SIGKILL; after the heartbeat timeout
// Temporal retries the activity on a second worker process, which resumes the episode from its checkpoint.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const campaignId = uniqueName('resume');
const resultSet = `${campaignId}/eval-0`;
const episodeId = `${resultSet}/${RESUME_TASK_ID}/t0`;
let f: WorkerProcessFixture;

before(async () => {
  f = await workerProcessFixture('resume');
});

after(async () => {
  await f?.close([episodeId], [campaignId]);
});

const startWorker = (turnDelayMs: number) => f.startWorker([String(turnDelayMs)]);

const policyTurns = (output: string) =>
  output.split('\n').filter((line) => line.startsWith(`policy-turn ${episodeId} `)).length;

test('worker SIGKILLed mid-episode: the retried attempt on a second worker process resumes from the last turn, with no duplicated tool effect (oracle policy)', async (t) => {
  // Real time on the dev server, not the time-skipping test server: a real SIGKILL of a worker process is the point.
  const settings = oracleSettings(f.queues, {
    maxAttempts: 3,
    initialInterval: '200ms',
    backoffCoefficient: 1,
    maximumInterval: '1s',
    startToCloseTimeout: '3m',
    heartbeatTimeout: '6s',
  });
  const first = await startWorker(700);
  const handle = await f.client.workflow.start(evaluation, {
    taskQueue: f.queues.control,
    workflowId: `${campaignId}/eval`,
    args: [
      { campaignId, resultSet, step: 0, source: { taskSet: f.taskSet, split: 'train' }, k: 1, window: 1, settings },
    ],
  });

  // create_ticket is call 2: once the checkpoint counts three turns, a write has committed and its turn is complete.
  const atKill: EpisodeDatabaseCounts = await until('a checkpoint after the first write', async () => {
    const counts = await countEpisodeRows(f.config, episodeId);
    return counts.checkpointTurns !== null && counts.checkpointTurns >= 3 ? counts : undefined;
  });
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const askedBeforeKill = policyTurns(first.output());
  assert.ok(
    atKill.toolCalls.some((c) => c.tool === 'create_ticket'),
    'a write had committed before the kill',
  );

  const second = await startWorker(0);
  const result = await handle.result();
  assert.deepEqual(result.episodes, { done: 1, infraFailed: 0 });
  assert.equal(result.metrics.pass1, 1, 'the resumed episode earned its reward');
  const rows = await f.pool.query<{ reward: number; error: string | null }>(
    'SELECT reward, error FROM campaign_result_rows WHERE result_set = $1',
    [resultSet],
  );
  assert.deepEqual(rows.rows, [{ reward: 1, error: null }]);

  // Temporal saw the first attempt time out and a second one complete.
  const history = await handle.fetchHistory();
  const attempts = (history.events ?? []).flatMap((e) =>
    e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 1] : [],
  );
  assert.ok(attempts.includes(2), `episode activity attempts: ${attempts.join(',')}`);

  // The episode database: one row per effect.
  const done = await countEpisodeRows(f.config, episodeId);
  const fresh = await freshEpisodeCounts(f.config, f.runtime.backend, f.task);
  assert.deepEqual(
    done.toolCalls.map((c) => c.tool),
    f.task.golden.map((c) => c.tool),
    'one recorded call per golden call',
  );
  assert.deepEqual(
    done.toolCalls.map((c) => c.callIndex),
    f.task.golden.map((_, i) => i),
  );
  assert.equal(done.tickets, fresh.tickets + 1, 'exactly one ticket row');
  assert.equal(done.refunds, fresh.refunds + 1, 'exactly one refund row');

  // The record: resumed once, after the checkpointed turns; the transcript holds every turn once.
  const record = (await new EpisodeStore(f.pool).load(episodeId))!;
  const resumedAfter = record.resumedAt[0]!;
  assert.equal(record.resumedAt.length, 1);
  assert.ok(
    resumedAfter >= atKill.checkpointTurns!,
    `resumed after turn ${resumedAfter}, checkpoint at kill ${atKill.checkpointTurns}`,
  );
  assert.ok(askedBeforeKill >= resumedAfter, `the killed worker asked ${askedBeforeKill} turns`);
  const askedAfterResume = policyTurns(second.output());
  t.diagnostic(
    `killed after ${askedBeforeKill} policy turns (checkpoint at turn ${atKill.checkpointTurns}, ${atKill.toolCalls.length} calls committed); resumed after turn ${resumedAfter}; ${askedAfterResume} of ${record.turns.length} turns asked on the second worker`,
  );
  assert.equal(
    askedAfterResume,
    record.turns.length - resumedAfter,
    'the second worker asked only for the turns after the checkpoint',
  );
  assert.ok(askedAfterResume < record.turns.length);
  const calls = record.transcript.turns.flatMap((t) => (t.role === 'assistant' ? t.toolCalls.map((c) => c.tool) : []));
  assert.deepEqual(
    calls,
    f.task.golden.map((c) => c.tool),
    'no duplicated turn in the transcript',
  );
  assert.equal(record.transcript.turns.filter((t) => t.role === 'tool').length, f.task.golden.length);
  assert.equal(record.transcript.turns.filter((t) => t.role === 'assistant').length, record.turns.length);
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Client } from '@temporalio/client';
import { writeTaskSet } from '../../environment/task-set.js';
import { LocalArtifactStore } from '../../storage/artifacts.js';
import { loadConfig } from '../../infra/config.js';
import { connectionConfig } from '../../environment/connection.js';
import { connectClient } from '../../infra/temporal-client.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../wiring/episode-runtime.js';
import type { Task } from '../../schemas/task.js';
import { evaluation } from '../../workflows/evaluation.js';
import { startControlWorker, type RunningWorker } from '../../workers/control.js';
import { startProcess, uniqueName } from '../helpers/index.js';
import { sharedWorkflowBundle } from './bundle.js';
import {
  countEpisodeRows,
  freshEpisodeCounts,
  oracleSettings,
  RESUME_TASK_ID,
  RESUME_TASK_SET,
  type EpisodeDatabaseCounts,
} from './oracle-episodes.js';
import { sleep } from './slowed-policy.js';

// A worker killed mid-episode, for real: the evaluation workflow (control worker in this process, real Temporal dev
// server) runs one oracle episode of a travel task on an episode worker that is a separate OS process
// (resume-worker.ts: the real DatabaseEpisodeRunner, real PostgreSQL and MCP, the oracle slowed per turn). Once a
// write call has committed and its turn is checkpointed, the process gets SIGKILL; after the heartbeat timeout
// Temporal retries the activity on a second worker process, which resumes the episode from its checkpoint.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const config = loadConfig();
const workerScript = fileURLToPath(new URL('./resume-worker.js', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-resume-'));
const queues = {
  control: uniqueName('resume-control'),
  episodes: uniqueName('resume-episodes'),
  gpu: uniqueName('resume-gpu'),
};
const campaignId = uniqueName('resume');
const resultSet = `${campaignId}/eval-0`;
const episodeId = `${resultSet}/${RESUME_TASK_ID}/t0`;
let runtime: EpisodeRuntime;
let control: RunningWorker;
let client: Client;
let pool: pg.Pool;
let task: Task;
let taskSet: string;
const workers: ReturnType<typeof startProcess>[] = [];

before(async () => {
  runtime = await createEpisodeRuntime(config, { backend: { sparesPerTemplate: 0 } });
  task = runtime.tasks.get(RESUME_TASK_SET, RESUME_TASK_ID);
  taskSet = writeTaskSet(dir, 'resume-test', '1', [task]).manifestFile;
  await runtime.backend.template(runtime.backend.registry.get(task.domain)); // built before any heartbeat clock runs
  control = await startControlWorker(config, {
    taskQueue: queues.control,
    workflowBundle: await sharedWorkflowBundle(),
    deps: { artifacts: new LocalArtifactStore(path.join(dir, 'artifacts')) },
  });
  client = await connectClient(config);
  pool = new pg.Pool({ ...connectionConfig(config), max: 2 });
});

after(async () => {
  for (const w of workers) await w.stop().catch(() => undefined);
  await control?.stop();
  if (runtime) {
    const { database, role } = runtime.backend.names(episodeId);
    await runtime.backend.dropByName(database, role).catch(() => undefined);
  }
  await pool?.query('DELETE FROM episodes WHERE episode_id = $1', [episodeId]);
  await pool?.query('DELETE FROM campaign_result_rows WHERE campaign_id = $1', [campaignId]);
  await pool?.end();
  await client?.connection.close();
  await runtime?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function startWorker(turnDelayMs: number) {
  const worker = startProcess(
    process.execPath,
    [workerScript, queues.episodes, String(turnDelayMs)],
    /resume-worker ready/,
  );
  workers.push(worker);
  await worker.started;
  return worker;
}

const policyTurns = (output: string) =>
  output.split('\n').filter((line) => line.startsWith(`policy-turn ${episodeId} `)).length;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

test('worker SIGKILLed mid-episode: the retried attempt on a second worker process resumes from the last turn, with no duplicated tool effect (oracle policy)', async (t) => {
  const settings = oracleSettings(queues, {
    maxAttempts: 3,
    initialInterval: '200ms',
    backoffCoefficient: 1,
    maximumInterval: '1s',
    startToCloseTimeout: '3m',
    heartbeatTimeout: '6s',
  });
  const first = await startWorker(700);
  const handle = await client.workflow.start(evaluation, {
    taskQueue: queues.control,
    workflowId: `${campaignId}/eval`,
    args: [{ campaignId, resultSet, step: 0, source: { taskSet, split: 'train' }, k: 1, window: 1, settings }],
  });

  // create_ticket is call 2: once the checkpoint counts three turns, a write has committed and its turn is complete.
  const atKill: EpisodeDatabaseCounts = await until('a checkpoint after the first write', async () => {
    const counts = await countEpisodeRows(config, episodeId);
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
  const rows = await pool.query<{ reward: number; error: string | null }>(
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
  const done = await countEpisodeRows(config, episodeId);
  const fresh = await freshEpisodeCounts(config, runtime.backend, task);
  assert.deepEqual(
    done.toolCalls.map((c) => c.tool),
    task.golden.map((c) => c.tool),
    'one recorded call per golden call',
  );
  assert.deepEqual(
    done.toolCalls.map((c) => c.callIndex),
    task.golden.map((_, i) => i),
  );
  assert.equal(done.tickets, fresh.tickets + 1, 'exactly one ticket row');
  assert.equal(done.refunds, fresh.refunds + 1, 'exactly one refund row');

  // The record: resumed once, after the checkpointed turns; the transcript holds every turn once.
  const record = (await new EpisodeStore(pool).load(episodeId))!;
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
    task.golden.map((c) => c.tool),
    'no duplicated turn in the transcript',
  );
  assert.equal(record.transcript.turns.filter((t) => t.role === 'tool').length, task.golden.length);
  assert.equal(record.transcript.turns.filter((t) => t.role === 'assistant').length, record.turns.length);
});

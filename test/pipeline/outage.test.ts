import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { Client } from '@temporalio/client';
import { writeTaskSet } from '../../environment/task-set.js';
import { LocalArtifactStore } from '../../storage/artifacts.js';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { ensureControlDatabase, startLocal, stopLocal } from '../../infra/stack/postgres.js';
import { connectionConfig } from '../../environment/connection.js';
import { connectClient } from '../../workers/temporal-client.js';
import { fromRoot } from '../../core/paths.js';
import type { EpisodeHooks, EpisodeRunner } from '../../runtime/episode/runner.js';
import { policyFor } from '../../runtime/episode/episode-runner.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import type { EpisodeRequest } from '../../schemas/episode.js';
import { evaluation } from '../../workflows/evaluation.js';
import { startControlWorker } from '../../workers/control.js';
import type { RunningWorker } from '../../workers/temporal-worker.js';
import { startEpisodeWorker } from '../../workers/episodes.js';
import { freePort, uniqueName } from '../helpers/index.js';
import { sharedWorkflowBundle } from '../../testkit/pipeline/bundle.js';
import { firstTaskOfType, oracleSettings } from '../../testkit/pipeline/oracle-episodes.js';
import { SlowedPolicy, sleep } from '../../testkit/pipeline/slowed-policy.js';

// A real transient outage: the episode databases live in a PRIVATE PostgreSQL cluster (own data dir, free port) that
// this test starts, stops for a few seconds while episodes are in flight, and starts again. The episodes run through
// the evaluation workflow's fan-out (workflows/sweep.ts -> workflows/episodes.ts runEpisode) on the real Temporal dev
// server, on an episode worker with the real DatabaseEpisodeRunner and the oracle policy (slowed per turn, so the
// outage lands mid-episode). Every healthy oracle episode earns 1, so a 0 could only come from the outage. Not a
// grpoStep: with the oracle every group has equal rewards, so DAPO would discard them all. The control database
// (result rows) stays on the shared cluster; the shared cluster is never stopped.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const shared = loadConfig();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-outage-'));
fs.chmodSync(dir, 0o755); // the PostgreSQL server user must reach its data dir below
let outage: LoadedConfig;
const queues = {
  control: uniqueName('outage-control'),
  episodes: uniqueName('outage-episodes'),
  gpu: uniqueName('outage-gpu'),
};
const campaignId = uniqueName('outage');
const taskIds = ['cancel_order', 'address_change', 'late_delivery_compensation', 'return_item'].map((type) =>
  firstTaskOfType(fromRoot('tasks', 'retail', 'retail-train-mini.jsonl'), type),
);
let runtime: EpisodeRuntime;
const workers: RunningWorker[] = [];
let client: Client;
let pool: pg.Pool;
let clusterUp = false;
let taskSet: string;
/** Resolves once the oracle has been asked for this many turns, across episodes. */
let turnsAsked = 0;
const turnWaiters: { turns: number; resolve: () => void }[] = [];
const infraErrors: string[] = [];

/** Counts the InfrastructureErrors the real runner throws (each one is an attempt Temporal retries). */
class CountingRunner implements EpisodeRunner {
  constructor(private readonly inner: EpisodeRunner) {}
  async run(request: EpisodeRequest, hooks?: EpisodeHooks) {
    try {
      return await this.inner.run(request, hooks);
    } catch (err) {
      if ((err as Error).name === 'InfrastructureError')
        infraErrors.push(`${request.episodeId}: ${(err as Error).message}`);
      throw err;
    }
  }
}

before(async () => {
  outage = loadConfig({
    env: {
      ...process.env,
      DATABASE_URL: '',
      FINALSTATE_DATA_DIR: path.join(dir, 'data'),
      FINALSTATE_PG_PORT: String(await freePort()),
    },
  });
  await startLocal(outage);
  clusterUp = true;
  await ensureControlDatabase(outage);
  runtime = await createEpisodeRuntime(outage, {
    backend: { sparesPerTemplate: 0 },
    policyFor: (request, task) =>
      new SlowedPolicy(policyFor(request, task), async () => {
        turnsAsked += 1;
        for (const w of turnWaiters.filter((w) => turnsAsked >= w.turns)) w.resolve();
        await sleep(400);
      }),
  });
  const source = runtime.tasks.taskSet(fromRoot('tasks', 'retail', 'retail-train-mini.manifest.json'));
  const tasks = taskIds.map((id) => source.tasks.find((t) => t.id === id)!);
  taskSet = writeTaskSet(dir, 'outage-test', '1', tasks).manifestFile;
  await runtime.backend.template(runtime.backend.registry.get('retail'));
  workers.push(
    await startControlWorker(shared, {
      taskQueue: queues.control,
      workflowBundle: await sharedWorkflowBundle(),
      deps: { artifacts: new LocalArtifactStore(path.join(dir, 'artifacts')) },
    }),
  );
  workers.push(
    await startEpisodeWorker(outage, {
      runner: new CountingRunner(runtime.runner),
      taskQueue: queues.episodes,
      concurrency: 8,
      shutdownGraceTime: '2 seconds',
    }),
  );
  client = await connectClient(shared);
  pool = new pg.Pool({ ...connectionConfig(shared), max: 2 });
});

after(async () => {
  for (const w of workers.reverse()) await w.stop().catch(() => undefined);
  await runtime?.close().catch(() => undefined);
  if (clusterUp || outage) await stopLocal(outage).catch(() => undefined);
  await pool?.query('DELETE FROM campaign_result_rows WHERE campaign_id = $1', [campaignId]);
  await pool?.end();
  await client?.connection.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('episode fan-out (evaluation workflow, oracle policy): PostgreSQL of the episode databases stopped for 4 s mid-episode; the episodes are retried, none scores 0', async (t) => {
  // Real time on the dev server, not the time-skipping test server: a real PostgreSQL outage is the point.
  const settings = oracleSettings(queues, {
    maxAttempts: 10,
    initialInterval: '500ms',
    backoffCoefficient: 1.5,
    maximumInterval: '2s',
    startToCloseTimeout: '2m',
    heartbeatTimeout: '30s',
  });
  const k = 2;
  const resultSet = `${campaignId}/eval-0`;
  const handle = await client.workflow.start(evaluation, {
    taskQueue: queues.control,
    workflowId: `${campaignId}/eval`,
    args: [{ campaignId, resultSet, step: 0, source: { taskSet, split: 'train' }, k, window: 8, settings }],
  });

  // Stop the cluster once episodes are mid-conversation (their databases provisioned, calls under way).
  await new Promise<void>((resolve) => turnWaiters.push({ turns: 12, resolve }));
  const askedAtStop = turnsAsked;
  await stopLocal(outage);
  clusterUp = false;
  await sleep(4_000);
  await startLocal(outage);
  clusterUp = true;

  const result = await handle.result();
  const history = await handle.fetchHistory();
  const retried = (history.events ?? []).filter((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1).length;
  const resumed = await runtime.control.query<{ n: string }>(
    "SELECT count(*) AS n FROM episodes WHERE json_array_length(record->'resumedAt') > 0",
  );
  t.diagnostic(
    `outage after ${askedAtStop} policy turns; ${infraErrors.length} attempts failed with InfrastructureError; ${retried} episode activities retried; ${resumed.rows[0]!.n} episodes resumed from a turn checkpoint`,
  );

  assert.ok(infraErrors.length > 0, 'the outage failed attempts in flight');
  assert.ok(retried > 0, 'Temporal retried episode activities');
  assert.deepEqual(
    result.episodes,
    { done: taskIds.length * k, infraFailed: 0 },
    'every episode got a task outcome after its retries',
  );
  const rows = await pool.query<{ task_id: string; reward: number; error: string | null }>(
    'SELECT task_id, reward, error FROM campaign_result_rows WHERE result_set = $1',
    [resultSet],
  );
  assert.equal(rows.rows.length, taskIds.length * k);
  assert.deepEqual(
    rows.rows.filter((r) => r.reward !== 1 || r.error !== null),
    [],
    'no reward of 0 and no error row from the outage',
  );
  assert.equal(result.metrics.pass1, 1);
});

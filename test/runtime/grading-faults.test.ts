import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { writeTaskSet } from '../../environment/task-set.js';
import { loadConfig } from '../../workers/config.js';
import { ensureControlDatabase, startLocal, stopLocal } from '../../infra/stack/postgres.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import type { LoadedConfig } from '../../schemas/config.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import type { Task } from '../../schemas/task.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { cancelWhenRunning } from '../environment/harness.js';
import { freePort, uniqueName } from '../helpers/index.js';

// A fault while an episode is graded, through the real runner (oracle policy, real PostgreSQL and MCP): it is an
// infrastructure failure, never a 0. The attempt keeps the episode database; the retry (the same request again, as
// Temporal would send it) reattaches, grades the same state and scores what a fault-free run scores. The task is a
// retail task whose last SQL assertion sleeps, so the fault can land while the grader runs.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-grading-faults-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function slowTaskSet(runtime: EpisodeRuntime, seconds: number): { task: Task; taskSet: string } {
  const source = runtime.tasks.taskSet(fromRoot('tasks', 'retail', 'retail-train-mini.manifest.json'));
  const base = source.tasks.find((t) => t.tags[0] === 'cancel_order')!;
  const task: Task = {
    ...base,
    id: `${base.id}.slow-grading`,
    assertions: [
      ...base.assertions,
      { description: 'slow', sql: `SELECT 1 AS slept FROM pg_sleep(${seconds})`, expect: [{ slept: 1 }] },
    ],
  };
  const taskSet = writeTaskSet(fs.mkdtempSync(path.join(dir, 'set-')), 'slow-grading', '1', [task]).manifestFile;
  return { task, taskSet };
}

const request = (task: Task, taskSet: string, label: string) =>
  EpisodeRequest.parse({
    episodeId: uniqueName(`grading-fault-${label}`),
    taskId: task.id,
    taskSet,
    trial: 0,
    policy: { kind: 'oracle' },
    seed: 1,
  });

/** Until a statement with `marker` runs on `database`, then `then()`. */
async function whenRunning(runtime: EpisodeRuntime, database: string, marker: string, then: () => Promise<void>) {
  for (let i = 0; i < 2000; i++) {
    const res = await runtime.backend.admin.query(
      "SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND strpos(query, $2) > 0",
      [database, marker],
    );
    if (res.rowCount) return then();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no statement with ${marker} ran on ${database}`);
}

async function expectRetryScoresAsFaultFree(
  runtime: EpisodeRuntime,
  retried: EpisodeRequest,
  faultFree: EpisodeRequest,
) {
  const store = new EpisodeStore(runtime.control);
  assert.equal(await store.load(retried.episodeId), undefined, 'the failed attempt stored no record');
  const kept = await runtime.backend.admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [
    runtime.backend.names(retried.episodeId).database,
  ]);
  assert.equal(kept.rowCount, 1, 'the episode database is kept for the retry');
  const retry = await runtime.runner.run(retried);
  assert.equal(retry.reward, 1);
  const reference = await runtime.runner.run(faultFree);
  assert.equal(reference.reward, 1);
  const [a, b] = [(await store.load(retried.episodeId))!, (await store.load(faultFree.episodeId))!];
  assert.equal(a.outcome.reward, 1, 'the stored record says 1');
  assert.ok(a.resumedAt.length >= 1, 'the retry resumed the episode');
  assert.equal(
    a.grade.actualStateSha256,
    b.grade.actualStateSha256,
    'the retry graded the state a fault-free run ends in',
  );
  assert.equal(a.grade.actualStateSha256, a.grade.expectedStateSha256);
  assert.deepEqual(
    a.toolCalls.map((c) => [c.index, c.tool]),
    b.toolCalls.map((c) => [c.index, c.tool]),
  );
}

describe('a fault during grading, on the shared cluster', () => {
  let runtime: EpisodeRuntime;
  const ids: string[] = [];
  before(async () => {
    runtime = await createEpisodeRuntime(loadConfig());
  });
  after(async () => {
    await runtime.control.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [ids]);
    await runtime.close();
  });

  test('the grading statement cancelled by the server (pg_cancel_backend, 57014): an InfrastructureError, no record; the retry scores 1', async () => {
    const { task, taskSet } = slowTaskSet(runtime, 1.5);
    const faulted = request(task, taskSet, 'cancel');
    const faultFree = request(task, taskSet, 'cancel-reference');
    ids.push(faulted.episodeId, faultFree.episodeId);
    const cancelled = cancelWhenRunning(
      runtime.backend.admin,
      runtime.backend.names(faulted.episodeId).database,
      'pg_sleep(1.5)',
    );
    await assert.rejects(runtime.runner.run(faulted), (err: unknown) => {
      assert.ok(err instanceof InfrastructureError, `${(err as Error).name}: ${(err as Error).message}`);
      assert.match(err.message, /grading .*canceling statement due to user request/);
      return true;
    });
    assert.equal(await cancelled, true);
    await expectRetryScoresAsFaultFree(runtime, faulted, faultFree);
  });
});

describe('a fault during grading, on a private cluster', () => {
  let privateConfig: LoadedConfig;
  let runtime: EpisodeRuntime;
  before(async () => {
    const data = fs.mkdtempSync(path.join(dir, 'cluster-'));
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(data, 0o755); // the PostgreSQL server user must reach its data dir below
    privateConfig = loadConfig({
      env: {
        ...process.env,
        DATABASE_URL: '',
        FINALSTATE_DATA_DIR: path.join(data, 'data'),
        FINALSTATE_PG_PORT: String(await freePort()),
      },
    });
    await startLocal(privateConfig);
    await ensureControlDatabase(privateConfig);
    runtime = await createEpisodeRuntime(privateConfig, { backend: { sparesPerTemplate: 0 } });
  });
  after(async () => {
    await runtime?.close().catch(() => undefined);
    await stopLocal(privateConfig).catch(() => undefined);
  });

  test('PostgreSQL stopped while an episode is graded: an InfrastructureError, no record; once it is back the retry scores 1', async () => {
    const { task, taskSet } = slowTaskSet(runtime, 3);
    const faulted = request(task, taskSet, 'stop');
    const faultFree = request(task, taskSet, 'stop-reference');
    const stopped = whenRunning(runtime, runtime.backend.names(faulted.episodeId).database, 'pg_sleep(3)', async () => {
      await stopLocal(privateConfig, 'immediate');
    });
    await assert.rejects(runtime.runner.run(faulted), (err: unknown) => {
      assert.ok(err instanceof InfrastructureError, `${(err as Error).name}: ${(err as Error).message}`);
      return true;
    });
    await stopped;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await startLocal(privateConfig);
    await expectRetryScoresAsFaultFree(runtime, faulted, faultFree);
  });
});

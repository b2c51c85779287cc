import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Client } from '@temporalio/client';
import { writeTaskSet } from '../../environment/task-set.js';
import { LocalArtifactStore } from '../../storage/artifacts.js';
import { loadConfig } from '../../workers/config.js';
import { connectionConfig } from '../../environment/connection.js';
import { connectClient } from '../../workers/temporal-client.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import type { LoadedConfig } from '../../schemas/config.js';
import type { TaskQueues } from '../../schemas/pipeline.js';
import type { Task } from '../../schemas/task.js';
import { startControlWorker } from '../../workers/control.js';
import type { RunningWorker } from '../../workers/temporal-worker.js';
import { startProcess, uniqueName } from '../helpers/index.js';
import { sharedWorkflowBundle } from '../../testkit/pipeline/bundle.js';
import { RESUME_TASK_ID, RESUME_TASK_SET } from '../../testkit/pipeline/oracle-episodes.js';
import { sleep } from '../../testkit/pipeline/slowed-policy.js';

const workerScript = fileURLToPath(new URL('./resume-worker.js', import.meta.url));

export type WorkerProcess = ReturnType<typeof startProcess>;

/**
 * What the tests that run the resume task's oracle episode on episode workers in their own OS processes share: the
 * task as a one-task set, a control worker in this process on its own queues, a Temporal client and a pool on the
 * control database, and the worker processes (resume-worker.ts) it starts.
 */
export interface WorkerProcessFixture {
  config: LoadedConfig;
  runtime: EpisodeRuntime;
  client: Client;
  pool: pg.Pool;
  task: Task;
  taskSet: string;
  queues: TaskQueues;
  /** Starts a resume-worker.ts process on the episode queue with these arguments after the queue, once ready. */
  startWorker(args: string[], env?: NodeJS.ProcessEnv): Promise<WorkerProcess>;
  /** Stops every worker (a paused one resumed first), drops the episodes' databases, deletes their rows. */
  close(episodeIds: string[], campaignIds: string[]): Promise<void>;
}

export async function workerProcessFixture(label: string): Promise<WorkerProcessFixture> {
  const config = loadConfig();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `finalstate-${label}-`));
  const queues = {
    control: uniqueName(`${label}-control`),
    episodes: uniqueName(`${label}-episodes`),
    gpu: uniqueName(`${label}-gpu`),
  };
  const runtime = await createEpisodeRuntime(config, { backend: { sparesPerTemplate: 0 } });
  const task = runtime.tasks.get(RESUME_TASK_SET, RESUME_TASK_ID);
  const taskSet = writeTaskSet(dir, `${label}-test`, '1', [task]).manifestFile;
  await runtime.backend.template(runtime.backend.registry.get(task.domain)); // built before any heartbeat clock runs
  const control: RunningWorker = await startControlWorker(config, {
    taskQueue: queues.control,
    workflowBundle: await sharedWorkflowBundle(),
    deps: { artifacts: new LocalArtifactStore(path.join(dir, 'artifacts')) },
  });
  const client = await connectClient(config);
  const pool = new pg.Pool({ ...connectionConfig(config), max: 2 });
  const workers: WorkerProcess[] = [];
  return {
    config,
    runtime,
    client,
    pool,
    task,
    taskSet,
    queues,
    async startWorker(args, env = {}) {
      const worker = startProcess(
        process.execPath,
        [workerScript, queues.episodes, ...args],
        /resume-worker ready/,
        env,
      );
      workers.push(worker);
      await worker.started;
      return worker;
    },
    async close(episodeIds, campaignIds) {
      for (const w of workers) {
        if (w.child.signalCode === null && w.child.exitCode === null) w.child.kill('SIGCONT');
        await w.stop().catch(() => undefined);
      }
      await control.stop();
      for (const id of episodeIds) {
        const { database, role } = runtime.backend.names(id);
        await runtime.backend.dropByName(database, role).catch(() => undefined);
      }
      await pool.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [episodeIds]);
      await pool.query('DELETE FROM campaign_result_rows WHERE campaign_id = ANY($1)', [campaignIds]);
      await pool.end();
      await client.connection.close();
      await runtime.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` every 100 ms until it gives a value (a probe that throws counts as none yet). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

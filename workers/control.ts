import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { manifestTaskCatalog } from '../activities/tasks.js';
import { LocalArtifactStore } from '../infra/artifacts.js';
import { loadConfig, type LoadedConfig } from '../infra/config.js';
import { migrate } from '../infra/migrations.js';
import { connectionConfig } from '../infra/stack/postgres.js';
import { connectWorker, installWorkerRuntime } from '../infra/temporal-client.js';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.js', import.meta.url));

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped; rejects if it crashed. */
  done: Promise<void>;
  /** Graceful stop: in-flight work finishes or is handed back, then connections close. */
  stop(): Promise<void>;
}

/** The artifact store of an installation: <dataDir>/artifacts, file:// URIs. */
export function defaultArtifactStore(config: LoadedConfig): LocalArtifactStore {
  return new LocalArtifactStore(path.join(config.dataPath, 'artifacts'));
}

export interface ControlWorkerOptions {
  taskQueue?: string;
  /** A prebuilt bundle (bundleWorkflowCode) instead of bundling workflows/index.js again. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Replace default dependencies (artifact store, task catalog, fetch for the policy servers). */
  deps?: Partial<Omit<ActivityDeps, 'pool'>>;
}

/** Wraps a started Worker: `done` settles when it stops, `stop` shuts it down and waits for that. */
export function runWorker(worker: Worker, cleanup: () => Promise<void>): RunningWorker {
  const done = worker.run().finally(cleanup);
  return {
    worker,
    done,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/** The control worker: every workflow and the light activities (task lists, result rows, selection, batches, publishing). */
export async function startControlWorker(config: LoadedConfig, options: ControlWorkerOptions = {}): Promise<RunningWorker> {
  installWorkerRuntime();
  const pool = new pg.Pool({ ...connectionConfig(config), max: 4 });
  // Without a listener, an idle client's socket error (PostgreSQL restarted under it) is an unhandled 'error' event
  // that kills the process; with one, the error surfaces on the next query, which the activity's retry policy handles.
  pool.on('error', () => undefined);
  await migrate(pool);
  const connection = await connectWorker(config);
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: options.taskQueue ?? config.taskQueues.control,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    activities: createActivities({ pool, artifacts: defaultArtifactStore(config), catalog: manifestTaskCatalog, ...options.deps }),
    shutdownGraceTime: '30 seconds',
  });
  return runWorker(worker, async () => {
    await connection.close();
    await pool.end();
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const running = await startControlWorker(loadConfig());
  console.log(`control worker polling ${running.worker.options.taskQueue}`);
  await running.done;
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { manifestTaskLister } from '../activities/tasks.js';
import { loadConfig } from './config.js';
import { type LoadedConfig } from '../schemas/config.js';
import { migrate } from '../storage/migrations.js';
import { connectWorker, installWorkerRuntime } from './temporal-client.js';
import { controlPool, defaultArtifactStore } from './stores.js';
import { policyAdminTokenFile } from '../runtime/clients/admin-token.js';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.js', import.meta.url));

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped; rejects if it crashed. */
  done: Promise<void>;
  /** Graceful stop: in-flight work finishes or is handed back, then connections close. */
  stop(): Promise<void>;
}

export interface ControlWorkerOptions {
  taskQueue?: string;
  /** A prebuilt bundle (bundleWorkflowCode) instead of bundling workflows/index.js again. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Replace default dependencies (artifact store, task lister, fetch for the policy servers). */
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
export async function startControlWorker(
  config: LoadedConfig,
  options: ControlWorkerOptions = {},
): Promise<RunningWorker> {
  installWorkerRuntime();
  const pool = controlPool(config, 4);
  await migrate(pool);
  const connection = await connectWorker(config);
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: options.taskQueue ?? config.taskQueues.control,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    activities: createActivities({
      pool,
      artifacts: defaultArtifactStore(config),
      taskLister: manifestTaskLister,
      adminTokenFile: policyAdminTokenFile(config.dataPath),
      ...options.deps,
    }),
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

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { loadConfig, type LoadedConfig } from '../infra/config.js';
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

/** The control worker: workflows and light activities. */
export async function startControlWorker(config: LoadedConfig, options: { taskQueue?: string } = {}): Promise<RunningWorker> {
  installWorkerRuntime();
  const pool = new pg.Pool({ ...connectionConfig(config), max: 4 });
  const connection = await connectWorker(config);
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: options.taskQueue ?? config.taskQueues.control,
    workflowsPath,
    activities: createActivities({ pool }),
  });
  const done = worker.run().finally(async () => {
    await connection.close();
    await pool.end();
  });
  return {
    worker,
    done,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const running = await startControlWorker(loadConfig());
  console.log(`control worker polling ${running.worker.options.taskQueue}`);
  await running.done;
}

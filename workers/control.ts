import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps, type ControlActivities } from '../activities/index.js';
import { manifestTaskLister } from '../activities/tasks.js';
import { loadConfig } from './config.js';
import { type LoadedConfig } from '../schemas/config.js';
import { migrate } from '../storage/migrations.js';
import { startWorker, type RunningWorker } from './temporal-worker.js';
import { controlPool, defaultArtifactStore } from './stores.js';
import { policyAdminTokenFile } from '../runtime/clients/admin-token.js';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.js', import.meta.url));

export interface ControlWorkerOptions {
  taskQueue?: string;
  /** A prebuilt bundle (bundleWorkflowCode) instead of bundling workflows/index.js again. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Replace default dependencies (artifact store, task lister, fetch for the policy servers). */
  deps?: Partial<Omit<ActivityDeps, 'pool'>>;
  /** Tests: the activities as registered, from the ones built (e.g. one wrapped to see its failures sooner). */
  wrapActivities?: (activities: ControlActivities) => ControlActivities;
}

/** The control worker: every workflow and the light activities (task lists, result rows, selection, batches, publishing). */
export async function startControlWorker(
  config: LoadedConfig,
  options: ControlWorkerOptions = {},
): Promise<RunningWorker> {
  const pool = controlPool(config, 4);
  await migrate(pool);
  return startWorker(
    config,
    {
      taskQueue: options.taskQueue ?? config.taskQueues.control,
      ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
      activities: (options.wrapActivities ?? ((a) => a))(
        createActivities({
          pool,
          artifacts: defaultArtifactStore(config),
          taskLister: manifestTaskLister,
          adminTokenFile: policyAdminTokenFile(config.dataPath),
          ...options.deps,
        }),
      ),
      shutdownGraceTime: '30 seconds',
    },
    () => pool.end(),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const running = await startControlWorker(loadConfig());
  console.log(`control worker polling ${running.worker.options.taskQueue}`);
  await running.done;
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { createEpisodeActivities } from '../activities/episode.js';
import { loadConfig } from '../infra/config.js';
import { type LoadedConfig } from '../schemas/config.js';
import { connectWorker, installWorkerRuntime } from '../infra/temporal-client.js';
import type { EpisodeRunner } from '../runtime/episode/runner.js';
import { createEpisodeRuntime } from '../wiring/episode-runtime.js';
import { runWorker, type RunningWorker } from './control.js';

export interface EpisodeWorkerOptions {
  runner: EpisodeRunner;
  taskQueue?: string;
  /** Episodes this worker runs at once; default the stack config's workers.episodeConcurrency. */
  concurrency?: number;
  /** How long a shutdown waits for episodes in flight before handing them back (they are retried elsewhere). */
  shutdownGraceTime?: string;
}

/**
 * An episode worker: only the runEpisode activity. Any number of them may poll the episodes queue, on any machine.
 * On SIGINT/SIGTERM (or stop()) it stops polling, lets episodes in flight finish within the grace time, then exits;
 * an episode cut off is retried by Temporal on another worker.
 */
export async function startEpisodeWorker(config: LoadedConfig, options: EpisodeWorkerOptions): Promise<RunningWorker> {
  installWorkerRuntime();
  const connection = await connectWorker(config);
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: options.taskQueue ?? config.taskQueues.episodes,
    activities: createEpisodeActivities({ runner: options.runner }),
    maxConcurrentActivityTaskExecutions: options.concurrency ?? config.workers.episodeConcurrency,
    shutdownGraceTime: options.shutdownGraceTime ?? '2 minutes',
  });
  return runWorker(worker, () => connection.close());
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const config = loadConfig();
  const runtime = await createEpisodeRuntime(config);
  const running = await startEpisodeWorker(config, { runner: runtime.runner });
  console.log(
    `episode worker polling ${running.worker.options.taskQueue} (${running.worker.options.maxConcurrentActivityTaskExecutions} at once)`,
  );
  await running.done;
  await runtime.close();
}

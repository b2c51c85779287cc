import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEpisodeActivities } from '../activities/episode.js';
import { loadConfig } from './config.js';
import { type LoadedConfig } from '../schemas/config.js';
import { startWorker, type RunningWorker } from './temporal-worker.js';
import type { EpisodeRunner } from '../runtime/episode/runner.js';
import { createEpisodeRuntime } from './episode-runtime.js';

/** How an episode worker talks to Temporal, apart from its slot count (the concurrency). */
export interface EpisodeWorkerTuning {
  /** Activity-task long polls outstanding at most ('slots': one per slot), never more than the slots. */
  activityPollers: number | 'slots';
  /** Heartbeats (one per turn) reach Temporal at most this often; the SDK sends the first at once and coalesces the rest. */
  heartbeatThrottle?: string;
}

/**
 * Measured with `node dist/bench/episodes.js --sweep` (stand-in runner, 3 turns x 1,000 ms, 16 slots): 4, 10 or 16
 * pollers, a 1 s heartbeat throttle, a sliding window of 16, 32 or 144 all left 56-113 ms of overhead per episode,
 * within the run-to-run noise of this 2-core machine, so the SDK's defaults stay. What set the pace was the dev
 * server's SQLite: see DEV_SERVER_SQLITE_PRAGMAS.
 */
export const EPISODE_WORKER_TUNING: EpisodeWorkerTuning = { activityPollers: 10 };

export interface EpisodeWorkerOptions {
  runner: EpisodeRunner;
  taskQueue?: string;
  /** Episodes this worker runs at once; default the stack config's workers.episodeConcurrency. */
  concurrency?: number;
  /** How long a shutdown waits for episodes in flight before handing them back (they are retried elsewhere). */
  shutdownGraceTime?: string;
  tuning?: EpisodeWorkerTuning;
}

/**
 * An episode worker: only the runEpisode activity. Any number of them may poll the episodes queue, on any machine.
 * On SIGINT/SIGTERM (or stop()) it stops polling, lets episodes in flight finish within the grace time, then exits;
 * an episode cut off is retried by Temporal on another worker.
 */
export async function startEpisodeWorker(config: LoadedConfig, options: EpisodeWorkerOptions): Promise<RunningWorker> {
  const slots = options.concurrency ?? config.workers.episodeConcurrency;
  const tuning = options.tuning ?? EPISODE_WORKER_TUNING;
  return startWorker(config, {
    taskQueue: options.taskQueue ?? config.taskQueues.episodes,
    activities: createEpisodeActivities({ runner: options.runner }),
    maxConcurrentActivityTaskExecutions: slots,
    activityTaskPollerBehavior: {
      type: 'simple-maximum',
      maximum: Math.min(slots, tuning.activityPollers === 'slots' ? slots : tuning.activityPollers),
    },
    ...(tuning.heartbeatThrottle
      ? {
          maxHeartbeatThrottleInterval: tuning.heartbeatThrottle,
          defaultHeartbeatThrottleInterval: tuning.heartbeatThrottle,
        }
      : {}),
    shutdownGraceTime: options.shutdownGraceTime ?? '2 minutes',
  });
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

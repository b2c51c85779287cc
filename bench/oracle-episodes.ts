import { EpisodeLimits, type EpisodeRequest } from '../schemas/episode.js';
import { BENCH_TRAINING_TASKS } from './training-tasks.js';

/** Run `fn` on every item, at most `limit` at once. */
export async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** An oracle episode of the benchmarks' training tasks, as `finalstate run` plays one (scripted user, default limits). */
export function oracleRequest(episodeId: string, taskId: string, trial: number, campaignId: string): EpisodeRequest {
  return {
    episodeId,
    taskId,
    taskSet: BENCH_TRAINING_TASKS.taskSet,
    trial,
    campaignId,
    policy: { kind: 'oracle' },
    user: { kind: 'scripted' },
    limits: EpisodeLimits.parse({}),
    seed: 1,
  };
}

import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { EpisodeActivities } from '../activities/episode.js';
import { describeFailure } from '../core/failure-causes.js';
import { FailureType } from '../core/failure-types.js';
import type { EpisodeOutcome, EpisodeRequest } from '../schemas/episode.js';
import type { EpisodeSettings, TaskInfo } from '../schemas/pipeline.js';
import type { ResultRow } from '../schemas/results.js';
import { subSeed } from '../stats/random.js';

/** One episode activity's fate once its retries are spent. */
export type EpisodeAttempt =
  | { kind: 'outcome'; outcome: EpisodeOutcome }
  | { kind: 'infra'; message: string }
  | { kind: 'malformed'; message: string };

export interface EpisodeCoordinates {
  episodeId: string;
  taskId: string;
  taskSet: string;
  trial: number;
  campaignId: string;
  step?: number;
  group?: number;
}

export function episodeRequest(settings: EpisodeSettings, at: EpisodeCoordinates): EpisodeRequest {
  return {
    ...at,
    policy: settings.policy,
    user: settings.user,
    ...(settings.judge ? { judge: settings.judge } : {}),
    limits: settings.limits,
    seed: subSeed(settings.seed, at.episodeId) & 0x7fffffff,
  };
}

/**
 * The activity's summary in the Temporal UI, fixed when it is scheduled: task, trial and where it belongs. What came
 * of it is the outcome's own `summary` line, in the activity's result (and in the workflow's current details).
 */
export function scheduledSummary(request: EpisodeRequest): string {
  const where =
    request.step === undefined
      ? []
      : request.group !== undefined
        ? [`step ${request.step} g${request.group}`]
        : [`step ${request.step}`];
  return [`${request.taskId} t${request.trial}`, ...where, request.episodeId].join(' · ');
}

/**
 * Run one episode activity on the episodes queue with a readable activity id. Retries (with backoff) happen inside
 * Temporal; what comes back here is the outcome, or why there is none.
 */
export async function runEpisode(
  settings: EpisodeSettings,
  activityId: string,
  request: EpisodeRequest,
): Promise<EpisodeAttempt> {
  const { retry } = settings;
  const { runEpisode: run } = proxyActivities<EpisodeActivities>({
    taskQueue: settings.queues.episodes,
    activityId,
    summary: scheduledSummary(request),
    startToCloseTimeout: retry.startToCloseTimeout,
    heartbeatTimeout: retry.heartbeatTimeout,
    retry: {
      maximumAttempts: retry.maxAttempts,
      initialInterval: retry.initialInterval,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumInterval,
      nonRetryableErrorTypes: [FailureType.malformedTask],
    },
  });
  try {
    return { kind: 'outcome', outcome: await run(request) };
  } catch (err) {
    if (isCancellation(err)) throw err; // the caller cancelled it (a surplus group): not an infrastructure failure
    if (err instanceof ActivityFailure) {
      const cause = err.cause;
      if (cause instanceof ApplicationFailure && cause.type === FailureType.malformedTask)
        return { kind: 'malformed', message: cause.message };
      return { kind: 'infra', message: describeFailure(err) };
    }
    throw err;
  }
}

/** The row an episode without a task outcome leaves: excluded from success counts, never a reward of 0. */
export function infraRow(task: TaskInfo, trial: number, campaignId: string, step: number | undefined): ResultRow {
  const none = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
  return {
    taskId: task.taskId,
    domain: task.domain,
    split: task.split,
    trial,
    tags: task.tags,
    reward: 0,
    error: 'infra',
    usage: { agent: none, user: none, judge: none },
    costUsd: 0,
    campaignId,
    ...(step !== undefined ? { step } : {}),
  };
}

/**
 * Keep at most `window` jobs running; `next` is asked for more whenever one finishes, so a planner can decide from
 * the outcomes so far. Jobs must not throw.
 */
export async function slidingWindow(window: number, next: () => (() => Promise<void>) | undefined): Promise<void> {
  const running = new Set<Promise<void>>();
  for (;;) {
    while (running.size < window) {
      const job = next();
      if (!job) break;
      const promise: Promise<void> = job().finally(() => running.delete(promise));
      running.add(promise);
    }
    if (running.size === 0) return;
    await Promise.race(running);
  }
}

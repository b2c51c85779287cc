import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import type { StoredRow } from '../storage/results.js';
import type { ChildProgress, EpisodeCounts } from '../schemas/campaign.js';
import type { EpisodeSettings, TaskInfo } from '../schemas/pipeline.js';
import { EpisodeAuditTrail, storedRowsSummary } from './audit.js';
import { episodeRequest, infraRow, runEpisode, slidingWindow } from './episodes.js';

const { storeResultRows } = proxyActivities<ControlActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Decides which episode runs next and learns each result: fixed k trials (evaluation) or the adaptive probe. */
export interface SweepPlanner {
  next(): { task: TaskInfo; trial: number } | undefined;
  record(taskId: string, result: 'success' | 'failure' | 'infra' | 'malformed'): void;
  /** Whether episodes remain to be planned (asked when nothing is in flight). */
  hasMore(): boolean;
  /** What counts as finished for progress: tasks resolved (probe) or episodes done (evaluation), out of the total. */
  finished(): { unit: 'tasks' | 'episodes'; finished: number; total: number };
}

/** What a sweep carries into a continued run (continueAsNew), besides its planner's state. */
export interface SweepCarry {
  progress: ChildProgress;
  malformed: string[];
  costUsd: number;
}

export interface SweepOptions {
  campaignId: string;
  resultSet: string;
  taskSet: string;
  step?: number;
  window: number;
  settings: EpisodeSettings;
  planner: SweepPlanner;
  /** Live counts, read by the workflow's progress query (carried over from earlier runs). */
  progress: ChildProgress;
  /** Malformed tasks and cost of earlier runs. */
  carried?: Pick<SweepCarry, 'malformed' | 'costUsd'>;
  /** Launch at most this many episodes in this run; the sweep also stops launching when Temporal suggests continueAsNew. */
  maxEpisodes?: number;
}

export interface SweepResult extends SweepCarry {
  episodes: EpisodeCounts;
  /** True when the sweep stopped launching early (episodes remain): the caller continues as new. */
  unfinished: boolean;
}

const FLUSH_EVERY = 50;
/**
 * A run stops launching past either bound and continues as new. Temporal only suggests continueAsNew near its own
 * limits (tens of MB), long after replaying the history has made each workflow task slow.
 */
const HISTORY_EVENTS_LIMIT = 4000;
const HISTORY_BYTES_LIMIT = 1 << 20;

function historyIsLong(): boolean {
  const info = workflowInfo();
  return (
    info.continueAsNewSuggested || info.historyLength > HISTORY_EVENTS_LIMIT || info.historySize > HISTORY_BYTES_LIMIT
  );
}

/**
 * Run episodes of many tasks with at most `window` in flight and store every row in the result set (in batches, through
 * an activity). An episode that still fails after its retries leaves an error row; a malformed task leaves none.
 */
export async function sweep(options: SweepOptions): Promise<SweepResult> {
  const { planner, progress, settings } = options;
  const malformed = new Set<string>(options.carried?.malformed ?? []);
  const buffer: StoredRow[] = [];
  let costUsd = options.carried?.costUsd ?? 0;
  let launched = 0;
  let stoppedEarly = false;
  let flushing: Promise<unknown> = Promise.resolve();
  const audit = new EpisodeAuditTrail(progress);
  progress.startedAt ??= Date.now();
  const countFinished = () => Object.assign(progress, planner.finished());
  countFinished();
  const flush = () => {
    const rows = buffer.splice(0, buffer.length);
    if (rows.length > 0)
      flushing = flushing.then(() =>
        storeResultRows.executeWithOptions({ summary: storedRowsSummary(rows) }, [
          { resultSet: options.resultSet, rows },
        ]),
      );
    return flushing;
  };

  await slidingWindow(options.window, () => {
    if ((options.maxEpisodes !== undefined && launched >= options.maxEpisodes) || historyIsLong()) {
      stoppedEarly = true;
      return undefined;
    }
    const picked = planner.next();
    if (!picked) return undefined;
    launched += 1;
    const { task, trial } = picked;
    const episodeId = `${options.resultSet}/${task.taskId}/t${trial}`;
    progress.planned += 1;
    progress.inFlight += 1;
    return async () => {
      const request = episodeRequest(settings, {
        episodeId,
        taskId: task.taskId,
        taskSet: options.taskSet,
        trial,
        campaignId: options.campaignId,
        ...(options.step !== undefined ? { step: options.step } : {}),
      });
      const attempt = await runEpisode(settings, `${task.taskId}-t${trial}`, request);
      progress.inFlight -= 1;
      if (attempt.kind === 'malformed') {
        malformed.add(task.taskId);
        planner.record(task.taskId, 'malformed');
        countFinished();
        audit.record(`${task.taskId} t${trial}`, attempt);
        return;
      }
      progress.done += 1;
      if (attempt.kind === 'infra') {
        progress.infraFailed += 1;
        buffer.push({ episodeId, row: infraRow(task, trial, options.campaignId, options.step) });
        planner.record(task.taskId, 'infra');
      } else {
        costUsd += attempt.outcome.costUsd;
        buffer.push({ episodeId, row: attempt.outcome });
        planner.record(task.taskId, attempt.outcome.reward === 1 ? 'success' : 'failure');
      }
      countFinished();
      audit.record(`${task.taskId} t${trial}`, attempt);
      if (buffer.length >= FLUSH_EVERY) void flush();
    };
  });
  await flush();
  return {
    episodes: { done: progress.done, infraFailed: progress.infraFailed },
    progress,
    malformed: [...malformed].sort(),
    costUsd,
    unfinished: stoppedEarly && planner.hasMore(),
  };
}

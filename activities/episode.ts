import { ApplicationFailure, Context } from '@temporalio/activity';
import { InfrastructureError } from '../core/errors.js';
import type { EpisodeOutcome, EpisodeRequest } from '../schemas/episode.js';
import type { EpisodeRunner } from '../runtime/episode/runner.js';
import { FailureType, isNamed } from './failures.js';

export interface EpisodeDeps {
  runner: EpisodeRunner;
}

/** How often a running episode heartbeats (a third of the heartbeat timeout, between 1 and 10 s). */
export function heartbeatEveryMs(heartbeatTimeoutMs: number | undefined): number | undefined {
  if (!heartbeatTimeoutMs) return undefined;
  return Math.min(10_000, Math.max(1_000, Math.floor(heartbeatTimeoutMs / 3)));
}

/**
 * Cancellation reasons that end this attempt but not the episode: Temporal gave up on the attempt (its heartbeat
 * timeout passed, so a retry is on its way) or the worker is shutting down. The runner sees them as an
 * InfrastructureError and keeps the episode database for the retry; a cancellation by the workflow (a surplus group)
 * ends the episode.
 */
const ATTEMPT_ENDED = new Set(['TIMED_OUT', 'NOT_FOUND', 'WORKER_SHUTDOWN']);

/** The activity's cancellation, with the attempt-ending reasons turned into an InfrastructureError. */
function episodeSignal(context: Context): AbortSignal {
  const controller = new AbortController();
  const source = context.cancellationSignal;
  const forward = () => {
    const reason = source.reason as unknown;
    const what = reason instanceof Error ? reason.message : String(reason);
    controller.abort(
      ATTEMPT_ENDED.has(what)
        ? new InfrastructureError(
            `this attempt of the episode was given up (${what}); a retry resumes it`,
            'temporal',
            {
              cause: reason,
            },
          )
        : reason,
    );
  };
  if (source.aborted) forward();
  else source.addEventListener('abort', forward, { once: true });
  return controller.signal;
}

/**
 * runEpisode wraps the episode runtime: a task outcome (any reward) is the return value. While the attempt runs it
 * heartbeats every few seconds, with the number of agent turns done (`{ turn }`, sent at once when a turn is done),
 * so a worker that dies mid-episode or is cut off from Temporal is noticed after the heartbeat timeout and the
 * attempt retried. A slow policy server, user simulator or tool is not a dead worker: every one of those waits has
 * its own per-call timeout, past which the attempt fails on its own with an InfrastructureError that names the
 * component and the wait, so the heartbeat timeout never has to be longer than the slowest of them.
 * The attempt number fences the episode database (see EpisodeHooks).
 */
export function createEpisodeActivities({ runner }: EpisodeDeps) {
  return {
    async runEpisode(request: EpisodeRequest): Promise<EpisodeOutcome> {
      const context = Context.current();
      let turns = 0;
      const beat = () => context.heartbeat({ turn: turns });
      const every = heartbeatEveryMs(context.info.heartbeatTimeoutMs);
      const ticker = every === undefined ? undefined : setInterval(beat, every);
      try {
        return await runner.run(request, {
          onTurn: (turn) => {
            turns = turn;
            beat();
          },
          signal: episodeSignal(context),
          attempt: context.info.attempt,
        });
      } catch (err) {
        // By name as well as by class: the runner may come from another copy of core/errors.
        if (isNamed(err, ['UserError', 'TaskSetError', 'GoldenCallError', 'AssertionQueryError'])) {
          throw ApplicationFailure.create({
            type: FailureType.malformedTask,
            message: `task ${request.taskId}: ${err.message}`,
            nonRetryable: true,
            cause: err,
          });
        }
        if (isNamed(err, ['InfrastructureError'])) {
          const component = (err as Error & { component?: string }).component ?? 'unknown';
          throw ApplicationFailure.create({
            type: FailureType.infrastructure,
            message: `${component}: ${err.message}`,
            details: [{ component }],
            cause: err,
          });
        }
        throw err;
      } finally {
        clearInterval(ticker);
      }
    },
  };
}

export type EpisodeActivities = ReturnType<typeof createEpisodeActivities>;

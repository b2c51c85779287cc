import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EpisodeOutcome, EpisodeRequest } from '../schemas/episode.js';
import type { EpisodeRunner } from '../runtime/episode/runner.js';
import { FailureType, isNamed } from './failures.js';

export interface EpisodeDeps {
  runner: EpisodeRunner;
}

/**
 * runEpisode wraps the episode runtime: a task outcome (any reward) is the return value; a heartbeat goes out once
 * per completed turn, so a worker that dies mid-episode is noticed after the heartbeat timeout and the attempt is retried.
 */
export function createEpisodeActivities({ runner }: EpisodeDeps) {
  return {
    async runEpisode(request: EpisodeRequest): Promise<EpisodeOutcome> {
      const context = Context.current();
      try {
        return await runner.run(request, {
          onTurn: (turn) => context.heartbeat({ turn }),
          signal: context.cancellationSignal,
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
      }
    },
  };
}

export type EpisodeActivities = ReturnType<typeof createEpisodeActivities>;

import { InfrastructureError } from '../core/errors.js';
import type { StateCheck } from '../schemas/grading.js';
import type { EnvironmentBackend, Episode } from './backend.js';
import type { ExpectedStates } from './expected-state.js';
import { asInfrastructureError, isInfrastructureFault, StaleAttemptError } from './pg-faults.js';
import { snapshotHash, takeSnapshot } from './snapshot.js';
import { checkAssertions } from './sql-assertions.js';
import { diffStates } from './state-diff.js';

/**
 * Check an episode's final state: snapshot (one read-only, repeatable-read transaction), diff against the task's
 * expected state by primary key, SQL assertions. The reward is decided from this check and the rubrics by
 * runtime/episode/scoring.ts, nowhere else.
 *
 * Only what the state says decides: a failure while reading it (connection lost, a statement cancelled or timed out
 * by the server, a shutdown, out of resources) is an InfrastructureError, naming the episode, and the database is
 * left as it was for the retry to check again; an assertion whose query is wrong is an AssertionQueryError (a
 * malformed task). Neither is ever a failed check.
 */
export async function checkFinalState(
  backend: EnvironmentBackend,
  expectedStates: ExpectedStates,
  episode: Episode,
): Promise<StateCheck> {
  const { task, domain } = episode;
  const expected = await expectedStates.get(task);
  const { actual, assertions } = await backend
    .transaction(
      episode,
      async (client) => {
        const actual = await takeSnapshot(client, domain, episode.catalog).catch((err: unknown) => {
          throw isInfrastructureFault(err) ? asInfrastructureError(err, 'snapshot') : err;
        });
        return { actual, assertions: await checkAssertions(client, task.assertions, task.id) };
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    )
    .catch((err: unknown) => {
      if (!(err instanceof InfrastructureError) || err instanceof StaleAttemptError) throw err;
      throw new InfrastructureError(`grading ${episode.episodeId}: ${err.message}`, err.component, { cause: err });
    });
  const primaryKeys = Object.fromEntries(Object.entries(domain.grading).map(([t, g]) => [t, g.primaryKey]));
  const diff = diffStates(expected.expected, actual, expected.initial, primaryKeys);
  return {
    taskId: task.id,
    taskSha256: episode.taskSha256,
    stateMatches: diff.length === 0,
    expectedStateSha256: expected.expectedSha256,
    actualStateSha256: snapshotHash(actual),
    diff,
    assertions,
  };
}

/** The final state is right: it equals the expected state and every SQL assertion holds. */
export function finalStateHolds(check: StateCheck): boolean {
  return check.stateMatches && check.assertions.every((a) => a.pass);
}

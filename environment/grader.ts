import { InfrastructureError } from '../core/errors.js';
import type { GradeReport } from '../schemas/grading.js';
import type { EnvironmentBackend, Episode } from './backend.js';
import type { ExpectedStates } from './expected-state.js';
import { asInfrastructureError, isInfrastructureFault, StaleAttemptError } from './pg-faults.js';
import { evaluateRubrics } from './rubrics.js';
import { snapshotHash, takeSnapshot } from './snapshot.js';
import { checkAssertions } from './sql-assertions.js';
import { diffStates } from './state-diff.js';

export interface GradeInput {
  episode: Episode;
  /**
   * The agent's visible messages in order, for transcript rubrics. Omitted (e.g. oracle replays), those rubrics are
   * reported `skipped`. Judge rubrics are never evaluated here: see GradeReport.pendingJudgeRubrics.
   */
  agentMessages?: readonly string[];
}

/**
 * Grade an episode's final state: snapshot (one read-only, repeatable-read transaction), diff against the task's
 * expected state by primary key, SQL assertions, deterministic rubrics. `pass` = empty diff, every assertion holds,
 * no evaluated deterministic rubric failed; judge rubrics are left to the runtime (pendingJudgeRubrics).
 *
 * Only what the state says decides: a failure while reading it (connection lost, a statement cancelled or timed out
 * by the server, a shutdown, out of resources) is an InfrastructureError, naming the episode, and the database is
 * left as it was for the retry to grade again; an assertion whose query is wrong is an AssertionQueryError (a
 * malformed task). Neither is ever a failed grade.
 */
export async function gradeEpisode(
  backend: EnvironmentBackend,
  expectedStates: ExpectedStates,
  input: GradeInput,
): Promise<GradeReport> {
  const { episode } = input;
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
  const rubrics = evaluateRubrics(task.rubrics, input.agentMessages);
  const stateMatches = diff.length === 0;
  return {
    taskId: task.id,
    taskSha256: episode.taskSha256,
    pass: stateMatches && assertions.every((a) => a.pass) && rubrics.every((r) => r.status !== 'failed'),
    stateMatches,
    expectedStateSha256: expected.expectedSha256,
    actualStateSha256: snapshotHash(actual),
    diff,
    assertions,
    rubrics,
    pendingJudgeRubrics: rubrics.filter((r) => r.status === 'needs_judge').length,
  };
}

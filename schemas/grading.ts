import { z } from 'zod';

/** One difference between the expected and the actual final state; rows are matched by primary key. */
export const StateDiffEntry = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('missing_row'),
      table: z.string(),
      key: z.record(z.string(), z.unknown()),
      expected: z.record(z.string(), z.unknown()),
    })
    .strict()
    .describe('A row the correct solution creates is absent.'),
  z
    .object({
      kind: z.literal('unexpected_row'),
      table: z.string(),
      key: z.record(z.string(), z.unknown()),
      actual: z.record(z.string(), z.unknown()),
    })
    .strict()
    .describe('A row the correct solution does not have (a side effect, or a row it deletes).'),
  z
    .object({
      kind: z.literal('deleted_row'),
      table: z.string(),
      key: z.record(z.string(), z.unknown()),
      expected: z.record(z.string(), z.unknown()),
    })
    .strict()
    .describe('A row of the initial state that should still exist is gone.'),
  z
    .object({
      kind: z.literal('changed_value'),
      table: z.string(),
      key: z.record(z.string(), z.unknown()),
      column: z.string(),
      expected: z.unknown(),
      actual: z.unknown(),
    })
    .strict(),
]);
export type StateDiffEntry = z.infer<typeof StateDiffEntry>;
export type DiffKind = StateDiffEntry['kind'];

export const AssertionOutcome = z
  .object({
    description: z.string(),
    pass: z.boolean(),
    actual: z.array(z.record(z.string(), z.unknown())).optional(),
    error: z.string().optional(),
  })
  .strict();

/**
 * `skipped`: a transcript rubric graded without the final assistant text. `needs_judge`: an LLM-judge rubric, which
 * this grader never evaluates; the runtime must combine its verdict with `pass`.
 */
export const RubricOutcome = z
  .object({
    kind: z.enum(['must_not_reveal', 'must_mention', 'judge']),
    description: z.string(),
    status: z.enum(['passed', 'failed', 'skipped', 'needs_judge']),
  })
  .strict();

/** The grade of one episode, kept for audit. */
export const GradeReport = z
  .object({
    taskId: z.string(),
    taskSha256: z.string(),
    /** Final state equals the expected state, every assertion holds, no evaluated deterministic rubric failed. */
    pass: z.boolean(),
    stateMatches: z.boolean(),
    expectedStateSha256: z.string(),
    actualStateSha256: z.string(),
    diff: z.array(StateDiffEntry),
    assertions: z.array(AssertionOutcome),
    rubrics: z.array(RubricOutcome),
    /** Judge rubrics left to the runtime; `pass` is only final when this is 0. */
    pendingJudgeRubrics: z.number().int().min(0),
  })
  .strict();
export type GradeReport = z.infer<typeof GradeReport>;

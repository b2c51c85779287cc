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

/** What the grader reads off an episode's final state: the diff against the expected state and the SQL assertions. */
export const StateCheck = z
  .object({
    taskId: z.string(),
    taskSha256: z.string(),
    stateMatches: z.boolean().describe('The final state equals the expected state (the diff is empty).'),
    expectedStateSha256: z.string(),
    actualStateSha256: z.string(),
    diff: z.array(StateDiffEntry),
    assertions: z.array(AssertionOutcome),
  })
  .strict();
export type StateCheck = z.infer<typeof StateCheck>;

/**
 * Where one rubric of the task stands in an episode's grade. `skipped`: a transcript rubric graded without a
 * conversation (an oracle replay). `needs_judge`: a judge rubric of an episode run without a judge; it does not count.
 */
export const RubricStatus = z
  .object({
    kind: z.enum(['must_not_reveal', 'must_mention', 'judge']),
    description: z.string(),
    status: z.enum(['passed', 'failed', 'skipped', 'needs_judge']),
  })
  .strict();
export type RubricStatus = z.infer<typeof RubricStatus>;

/** The grade of one episode, kept for audit; made by runtime/episode/scoring.ts alone, so `pass` is the reward. */
export const GradeReport = StateCheck.extend({
  /** The reward is 1: the final state matches, every assertion holds, no evaluated rubric failed. */
  pass: z.boolean(),
  rubrics: z.array(RubricStatus),
  /** Judge rubrics not evaluated because the episode ran without a judge (they do not count). */
  pendingJudgeRubrics: z.number().int().min(0),
}).strict();
export type GradeReport = z.infer<typeof GradeReport>;

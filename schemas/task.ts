import { z } from 'zod';
import { readOnlyQueryProblem } from '../core/sql-statements.js';
import { OpenEnvTaskPart } from './openenv-task.js';
import { ThinkingBoxTaskPart } from './thinkingbox.js';

export const Split = z.enum(['train', 'eval']);
export type Split = z.infer<typeof Split>;
export const Profile = z.enum(['full', 'mini']);
export type Profile = z.infer<typeof Profile>;

const Identifier = z.string().regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower_snake_case SQL identifier');
const Row = z.record(z.string(), z.unknown());

/** One tool call: the golden solution and the agent's calls share this shape. */
export const ToolCall = z
  .object({
    tool: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()),
  })
  .strict();
export type ToolCall = z.infer<typeof ToolCall>;

/** Rows upserted (by primary key) and deleted on top of the domain's seed, before the episode starts. */
export const TaskInit = z
  .object({
    upsert: z.record(Identifier, z.array(Row)).default({}),
    delete: z.record(Identifier, z.array(Row)).default({}).describe('Rows given by their primary-key columns.'),
  })
  .strict();

/** A SQL check on the final state: the query's rows must equal `expect` (order-insensitive). */
export const SqlAssertion = z
  .object({
    description: z.string().min(1),
    sql: z
      .string()
      .min(1)
      .superRefine((sql, ctx) => {
        const problem = readOnlyQueryProblem(sql);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .describe(
        'One read-only query (SELECT, WITH, VALUES or TABLE); run in a read-only transaction, extended protocol.',
      ),
    expect: z.array(Row),
  })
  .strict();

/**
 * Rubrics: deterministic ones are checked on the transcript by the runtime; `judge` rubrics are yes/no questions
 * for an LLM judge (the episode runtime implements the judge).
 */
export const Rubric = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('must_not_reveal'), description: z.string(), text: z.string().min(1) }).strict(),
  z.object({ kind: z.literal('must_mention'), description: z.string(), text: z.string().min(1) }).strict(),
  z.object({ kind: z.literal('judge'), description: z.string(), question: z.string().min(1) }).strict(),
]);
export type Rubric = z.infer<typeof Rubric>;

export const Task = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'task ids are letters, digits and . _ : -'),
    domain: z.string().min(1),
    split: Split,
    profile: Profile,
    tags: z.array(z.string().min(1)).default([]),
    query: z.string().min(1).describe("The user's first message."),
    userContext: z.string().describe('Private context for an LLM user simulator.'),
    userFacts: z
      .record(z.string(), z.string())
      .default({})
      .describe('Private facts the deterministic simulator reveals when asked.'),
    userDecisions: z
      .record(z.string(), z.boolean())
      .default({})
      .describe('Yes/no decisions the deterministic simulator gives when asked.'),
    init: TaskInit.default({ upsert: {}, delete: {} }),
    now: z.iso.datetime({ offset: true }).describe('The fixed clock of the episode.'),
    golden: z.array(ToolCall).describe('Ordered tool calls of one correct solution.'),
    assertions: z.array(SqlAssertion).default([]),
    rubrics: z.array(Rubric).default([]),
    thinkingbox: ThinkingBoxTaskPart.optional().describe(
      "A ThinkingBox task: played on ThinkingBox's session proxy and graded by its test runner (schemas/thinkingbox.ts).",
    ),
    openenv: OpenEnvTaskPart.optional().describe(
      'An OpenEnv task: played on an environment served over OpenEnv, rewarded by its terminal step (schemas/openenv-task.ts).',
    ),
  })
  .strict()
  .refine((task) => task.thinkingbox === undefined || task.openenv === undefined, {
    message: 'a task is a ThinkingBox task or an OpenEnv task, not both',
    path: ['openenv'],
  });
export type Task = z.infer<typeof Task>;

/** What plays a task: a PostgreSQL database of its domain pack, ThinkingBox's servers, or an OpenEnv server. */
export type TaskEnvironmentKind = 'postgres' | 'thinkingbox' | 'openenv';

export function taskEnvironment(task: Pick<Task, 'thinkingbox' | 'openenv'>): TaskEnvironmentKind {
  if (task.thinkingbox) return 'thinkingbox';
  if (task.openenv) return 'openenv';
  return 'postgres';
}
export type TaskInput = z.input<typeof Task>;

/** A versioned task set: the JSONL file of tasks plus this manifest beside it. */
export const TaskSetManifest = z
  .object({
    name: z.string().min(1),
    version: z.string().min(1),
    file: z.string().min(1).describe('JSONL file of tasks, relative to the manifest.'),
    tasks: z.array(z.object({ id: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).strict()),
  })
  .strict();
export type TaskSetManifest = z.infer<typeof TaskSetManifest>;

/** Bounds on reading a task-set file, which is read line by line and never held whole. */
export const TaskFileLimits = z
  .object({
    maxFileBytes: z
      .number()
      .int()
      .positive()
      .default(256 * 1024 * 1024)
      .describe('Largest task-set (JSONL) file read.'),
    maxLineBytes: z
      .number()
      .int()
      .positive()
      .default(16 * 1024 * 1024)
      .describe('Longest single task (one JSONL line).'),
    maxManifestBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024)
      .describe('Largest manifest file read.'),
  })
  .strict();
export type TaskFileLimits = z.infer<typeof TaskFileLimits>;

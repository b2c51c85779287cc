import type pg from 'pg';
import type { z } from 'zod';
import type { TableGrading } from '../schemas/domain.js';
import type { Profile, Split, TaskInput } from '../schemas/task.js';

/**
 * What a tool handler may touch: the episode's own database (inside the call's transaction), the task's fixed clock
 * and deterministic ids. Handlers never read the wall clock or a random source.
 */
export interface ToolContext {
  db: pg.ClientBase;
  now: Date;
  /** Next id of a named sequence, deterministic per episode database (e.g. nextId('ticket') -> 'TCK-1001'). */
  nextId(sequence: string): Promise<string>;
}

/** A business-rule rejection, not-found or invalid request: returned to the agent as an `isError` tool result. */
export class ToolRejection extends Error {
  override name = 'ToolRejection';
}

export interface ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  /** Written for an LLM: what it does, when to use it, what it returns. */
  description: string;
  input: Shape;
  /** True when the tool never writes. */
  readOnly: boolean;
  /**
   * Optional, for the `mini` profile (tiny models): a short description shown instead of `description`. In `mini`
   * every tool's parameters are listed without their descriptions; the `full` profile always shows everything.
   */
  miniDescription?: string;
  /**
   * Optional, for the `mini` profile: what the agent reads of a successful result, projected from the full result
   * (which is what is recorded and replayed). It may add facts derived from the episode clock `now`. Rejections are
   * shown unchanged. The `full` profile always shows the full result.
   */
  miniResult?(result: unknown, context: { now: Date }): unknown;
  handler(ctx: ToolContext, args: z.infer<z.ZodObject<Shape>>): Promise<unknown>;
}

export interface TaskGeneratorOptions {
  seed: number;
  split: Split;
  profile: Profile;
  count: number;
}

/** A domain pack (domains/<name>/): schema, seed, tools, policy, grading policy and a seeded task generator. */
export interface DomainDefinition {
  name: string;
  version: string;
  /** CREATE TABLE statements of every domain table. */
  schemaSql: string;
  /** Id sequences behind ToolContext.nextId: ids are `${prefix}${n}` counting up from `start`, per episode. */
  sequences: Record<string, { prefix: string; start: number }>;
  /** Base seed rows per table, inserted into the template database. */
  seed: Record<string, Record<string, unknown>[]>;
  grading: Record<string, TableGrading>;
  /** The agent's system prompt (policy manual) per profile; `mini` at most 1,500 characters. */
  policy: Record<Profile, string>;
  tools: ToolDefinition[];
  /** Tool names offered per profile; `mini` at most 6. */
  profileTools: Record<Profile, string[]>;
  generateTasks(options: TaskGeneratorOptions): TaskInput[];
}

import type pg from 'pg';
import type { z } from 'zod';
import type { TableGrading } from '../schemas/domain.js';
import type { Profile, Split, TaskInput, ToolCall } from '../schemas/task.js';

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

/**
 * The brand a rejection carries. The executor recognises rejections by it rather than by `instanceof`, so a pack that
 * loads its own copy of this module (or defines its own class with the brand) is still understood.
 */
export const TOOL_REJECTION = Symbol.for('finalstate.ToolRejection');

/** A business-rule rejection, not-found or invalid request: returned to the agent as an `isError` tool result. */
export class ToolRejection extends Error {
  override name = 'ToolRejection';
  readonly [TOOL_REJECTION] = true;
}

/** Whether `err` is a rejection: it carries the ToolRejection brand, whichever copy of the class made it. */
export function isToolRejection(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[TOOL_REJECTION] === true;
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
  /** Rules every generated task must keep, checked by `finalstate tasks check` over a large sample and by `tasks generate`. */
  invariants?: TaskInvariant[];
  /**
   * Built-in invariants (environment/invariants.ts) this pack turns off, by name, each with the reason `tasks check`
   * prints: e.g. `{ 'refusals-are-read-only': 'a refusal is recorded in a ticket closed refused' }`, with a rule of
   * the pack's own in `invariants` in its place.
   */
  turnOffInvariants?: Record<string, string>;
  /**
   * Optional: a plausible path through a task that breaks one of the domain's rules, for the base model's
   * demonstrations (a stated share of training tasks takes it, so the base applies the rules inconsistently, as a
   * pretrained model does). Every call must be one the tools accept, and the grader must reject the final state:
   * cancelling what the policy forbids, skipping a required approval or fee, acting on the user's word alone.
   * Return nothing for tasks without such a path. Only training-split tasks are ever asked.
   */
  ruleBreakingPath?(task: TaskInput): ToolCall[] | undefined;
}

/**
 * A rule over generated tasks that the pack states and its generator must keep (e.g. "a task tagged refuse asks for
 * something rule 3.1 forbids"). `check` returns why a task violates it, or nothing when the task keeps it.
 */
export interface TaskInvariant {
  name: string;
  description: string;
  /**
   * Optional: the tasks the rule concerns (e.g. those tagged `refuse`). `tasks check` then says how many of the
   * sample it concerned, so a rule that concerns none (a renamed tag) is seen, not silently passed.
   */
  appliesTo?(task: TaskInput): boolean;
  check(task: TaskInput): string | undefined | void;
}

/**
 * A pack as its author writes it: the `mini` profile (tiny models) is optional. The registry fills a missing `mini`
 * with no tools and no policy, which `servesProfile` reads as "not served".
 */
export interface DomainPack extends Omit<DomainDefinition, 'policy' | 'profileTools'> {
  policy: { full: string; mini?: string };
  profileTools: { full: string[]; mini?: string[] };
}

/** Whether a pack offers tasks of a profile: every pack serves `full`; `mini` only with mini tools. */
export function servesProfile(domain: DomainDefinition, profile: Profile): boolean {
  return profile === 'full' || domain.profileTools.mini.length > 0;
}

/** The registry's view of a pack: a missing mini profile becomes an empty one. */
export function normalizePack(pack: DomainPack): DomainDefinition {
  if (pack.policy.mini !== undefined && pack.profileTools.mini !== undefined) return pack as DomainDefinition;
  return {
    ...pack,
    policy: { full: pack.policy.full, mini: pack.policy.mini ?? '' },
    profileTools: { full: pack.profileTools.full, mini: pack.profileTools.mini ?? [] },
  };
}

import type { DomainPack, TaskGeneratorOptions, ToolDefinition } from '../../environment/domain.js';
import type { Profile, Split, TaskInput, ToolCall } from '../../schemas/task.js';
import { Prng } from './prng.js';

type Row = Record<string, unknown>;

/** What one scenario builds; the runner adds id, domain, split, profile, clock and the derived tags. */
export interface TaskDraft {
  tags?: string[];
  query: string;
  userContext: string;
  userFacts?: Record<string, string>;
  userDecisions?: Record<string, boolean>;
  /** Rows upserted in this key order (parents before children) and deleted by primary key. */
  init: { upsert?: Record<string, Row[]>; delete?: Record<string, Row[]> };
  golden: ToolCall[];
  assertions?: { description: string; sql: string; expect: Row[] }[];
  rubrics?: TaskInput['rubrics'];
}

export interface ScenarioContext {
  rng: Prng;
  profile: Profile;
  split: Split;
  /** A number unique to this task instance and disjoint between splits: build entity ids from it. */
  n: number;
  now: Date;
}

/** One task type: which profiles it serves and how to build an instance. */
export interface Scenario {
  type: string;
  profiles: readonly Profile[];
  build(ctx: ScenarioContext): TaskDraft;
}

/** Entity numbers (order, booking, ... references) of both splits: six digits. */
export const ENTITY_RANGE = { start: 100_000, size: 800_000 } as const;

/**
 * The split an entity number belongs to, by a mixing hash of the number: the splits never share a number (no train
 * instance reappears in eval), yet both draw from the same digits in every position. (Disjoint ranges per split, as
 * first built, gave eval ids leading digits training never shows: a ~1M base model copied "BKG-508056" as
 * "BKG-308056", and no amount of training on the other range could teach it otherwise.)
 */
export function splitOf(n: number): Split {
  let h = n | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h & 1) === 0 ? 'train' : 'eval';
}

/**
 * A stride coprime with the range size: walking k * stride visits every number once, and consecutive tasks land far
 * apart, so one task set spans every leading digit.
 */
const ENTITY_STRIDE = 393_241;

/**
 * The `index`-th number of `split`, walking the range by a large stride from an offset the seed gives. (A walk by +1,
 * as first built, gave every set of one seed a narrow window: the SFT demonstrations were all 107xxx-108xxx, so the
 * base model copied those ids well and others badly, and a second seed's pool (143xxx) was hard for that reason
 * alone; training on it taught copying 14xxxx, which the held-out tasks never ask.)
 */
export function entityNumber(split: Split, seed: number, index: number): number {
  const offset = (Math.abs(Math.trunc(seed)) * 7919) % ENTITY_RANGE.size;
  let seen = -1;
  for (let k = 0; k < ENTITY_RANGE.size; k++) {
    const n = ENTITY_RANGE.start + (((offset + k) * ENTITY_STRIDE) % ENTITY_RANGE.size);
    if (splitOf(n) === split && ++seen === index) return n;
  }
  throw new Error(`task index ${index} exceeds the ${split} split's entity numbers`);
}

/** Tools that only keep the ticket's bookkeeping; they do not count towards `multi-write`. */
const BOOKKEEPING_TOOLS = new Set(['create_ticket', 'update_ticket']);

/** Tags derived from the golden solution and facts, so they can never disagree with the task. */
function derivedTags(draft: TaskDraft, tools: Map<string, ToolDefinition>): string[] {
  const writes = draft.golden.filter((call) => {
    const tool = tools.get(call.tool);
    if (!tool) throw new Error(`golden call to unknown tool ${call.tool}`);
    return !tool.readOnly;
  });
  const tags: string[] = [];
  if (writes.length === 0) tags.push('read-only');
  if (writes.filter((call) => !BOOKKEEPING_TOOLS.has(call.tool)).length >= 2) tags.push('multi-write');
  if (Object.keys(draft.userFacts ?? {}).length > 0) tags.push('needs-private-facts');
  return tags;
}

export interface GeneratorSpec {
  domain: string;
  scenarios: readonly Scenario[];
  tools: readonly ToolDefinition[];
  profileTools: DomainPack['profileTools'];
  /** The episode clock of one task, drawn from its PRNG. */
  clock(rng: Prng): Date;
}

/**
 * Deterministic task generation: task i of (seed, split, profile) uses scenario i mod k (balanced types) and a PRNG
 * derived from all four, so the same options always yield identical tasks.
 */
export function generateFromScenarios(spec: GeneratorSpec, options: TaskGeneratorOptions): TaskInput[] {
  const scenarios = spec.scenarios.filter((s) => s.profiles.includes(options.profile));
  if (scenarios.length === 0)
    throw new Error(
      `${spec.domain}: no task type serves profile ${options.profile}; add '${options.profile}' to the profiles of a scenario${options.profile === 'mini' ? ', or drop policy.mini and profileTools.mini to serve full only' : ''}`,
    );
  const tools = new Map(spec.tools.map((t) => [t.name, t]));
  const allowed = new Set(spec.profileTools[options.profile] ?? []);
  const tasks: TaskInput[] = [];
  for (let index = 0; index < options.count; index++) {
    const scenario = scenarios[index % scenarios.length]!;
    const rng = Prng.from(spec.domain, options.seed, options.split, options.profile, index);
    const now = spec.clock(rng);
    const n = entityNumber(options.split, options.seed, index);
    const draft = scenario.build({ rng, profile: options.profile, split: options.split, n, now });
    const foreign = draft.golden.find((call) => !allowed.has(call.tool));
    if (foreign)
      throw new Error(
        `${spec.domain}/${scenario.type}: golden uses ${foreign.tool}, not offered in profile ${options.profile}`,
      );
    const tags = [...new Set([scenario.type, ...(draft.tags ?? []), ...derivedTags(draft, tools)])];
    tasks.push({
      id: `${spec.domain}.${options.split}.${options.profile}.${scenario.type}.${n}`,
      domain: spec.domain,
      split: options.split,
      profile: options.profile,
      tags,
      query: draft.query,
      userContext: draft.userContext,
      userFacts: draft.userFacts ?? {},
      userDecisions: draft.userDecisions ?? {},
      init: { upsert: draft.init.upsert ?? {}, delete: draft.init.delete ?? {} },
      now: now.toISOString(),
      golden: draft.golden,
      assertions: draft.assertions ?? [],
      rubrics: draft.rubrics ?? [],
    });
  }
  return tasks;
}

import { UserError } from '../core/errors.js';
import type { Profile, Split, TaskInput } from '../schemas/task.js';
import { servesProfile, type DomainDefinition, type TaskInvariant, type ToolDefinition } from './domain.js';

/** Where the invariants are explained for pack authors. */
export const INVARIANTS_DOC = 'docs/domain-packs.md#invariants-and-tasks-check';

/** The tags that mark a refusal: the built-in refusal invariant keys on them, so a refusal must carry one. */
export const REFUSAL_TAGS = ['refuse', 'declined'] as const;

const isRefusal = (task: TaskInput) => (task.tags ?? []).some((t) => (REFUSAL_TAGS as readonly string[]).includes(t));

/** A built-in invariant: every pack keeps it unless it turns it off (`turnOffInvariants`) with a reason. */
export interface BuiltInInvariant extends TaskInvariant {
  /** What it protects. */
  protects: string;
  /** When a pack may turn it off, and what to state in its place. */
  turnOffWhen: string;
}

/**
 * A refusal changes nothing: its golden calls only read. It keys on the tags `refuse` and `declined` (a refusal
 * tagged otherwise is not checked: `tasks check` shows how many tasks it concerned).
 */
export const refusalsAreReadOnly: BuiltInInvariant = {
  name: 'refusals-are-read-only',
  description: `a task tagged ${REFUSAL_TAGS.join(' or ')} makes no write: its golden calls only read`,
  protects:
    'a generator that tags a task refused but still performs (part of) the forbidden change in its golden calls, which would teach and grade that change as correct',
  turnOffWhen:
    'the business records a refusal (e.g. a ticket closed `refused`); then state refusalsWriteOnly(tools, [the recording tools]) among its own invariants',
  appliesTo: isRefusal,
  check: (task) =>
    isRefusal(task) && !(task.tags ?? []).includes('read-only')
      ? `tagged ${(task.tags ?? []).filter((t) => (REFUSAL_TAGS as readonly string[]).includes(t)).join('/')} but its golden calls write`
      : undefined,
};

/** Invariants every pack keeps, whatever it declares, unless it turns one off. */
export const BUILT_IN_INVARIANTS: readonly BuiltInInvariant[] = [refusalsAreReadOnly];

/**
 * The replacement for `refusals-are-read-only` in a pack that records refusals: a task tagged refuse or declined
 * writes only through `recording` (e.g. the ticket tools), never through another write tool.
 */
export function refusalsWriteOnly(tools: readonly ToolDefinition[], recording: readonly string[]): TaskInvariant {
  const writes = new Set(tools.filter((t) => !t.readOnly).map((t) => t.name));
  const unknown = recording.filter((name) => !tools.some((t) => t.name === name));
  if (unknown.length) throw new Error(`refusalsWriteOnly: unknown tool(s) ${unknown.join(', ')}`);
  return {
    name: 'refusals-write-only-records',
    description: `a task tagged ${REFUSAL_TAGS.join(' or ')} writes only with ${recording.join(', ')}`,
    appliesTo: isRefusal,
    check(task) {
      if (!isRefusal(task)) return;
      const other = task.golden.filter((c) => writes.has(c.tool) && !recording.includes(c.tool)).map((c) => c.tool);
      return other.length ? `a refusal that writes with ${[...new Set(other)].join(', ')}` : undefined;
    },
  };
}

/** Checks the pack's `turnOffInvariants`: each names a built-in invariant and gives a reason. */
export function invariantSettingProblems(domain: Pick<DomainDefinition, 'turnOffInvariants' | 'invariants'>): string[] {
  const problems: string[] = [];
  const names = BUILT_IN_INVARIANTS.map((i) => i.name);
  for (const [name, reason] of Object.entries(domain.turnOffInvariants ?? {})) {
    if (!names.includes(name))
      problems.push(
        `turnOffInvariants names ${JSON.stringify(name)}, which is no built-in invariant (${names.join(', ')})`,
      );
    else if (typeof reason !== 'string' || reason.trim() === '')
      problems.push(`turnOffInvariants.${name} needs a reason (a sentence that tasks check prints)`);
  }
  const own = new Set<string>();
  for (const invariant of domain.invariants ?? []) {
    if (own.has(invariant.name) || names.includes(invariant.name))
      problems.push(`invariant ${invariant.name} is declared twice (or shadows a built-in one)`);
    own.add(invariant.name);
  }
  return problems;
}

/** The invariants a pack's tasks are checked against: the built-in ones it keeps, then its own. */
export function invariantsOf(domain: InvariantSettings): { invariant: TaskInvariant; builtIn: boolean }[] {
  const off = domain.turnOffInvariants ?? {};
  return [
    ...BUILT_IN_INVARIANTS.filter((i) => !(i.name in off)).map((invariant) => ({ invariant, builtIn: true })),
    ...(domain.invariants ?? []).map((invariant) => ({ invariant, builtIn: false })),
  ];
}

export interface InvariantViolation {
  taskId: string;
  invariant: string;
  message: string;
}

type InvariantSettings = Pick<DomainDefinition, 'invariants' | 'turnOffInvariants'>;

/** The violations of the pack's invariants (and the built-in ones it keeps) among `tasks`. */
export function invariantViolations(domain: InvariantSettings, tasks: readonly TaskInput[]): InvariantViolation[] {
  return checkInvariants(domain, tasks).violations;
}

/** Violations of one invariant with the same message: one cause, counted, with a few task ids as examples. */
export interface ViolationCause {
  message: string;
  count: number;
  examples: string[];
}

export interface InvariantResult {
  name: string;
  description: string;
  builtIn: boolean;
  /** Tasks the invariant concerns (its `appliesTo`); null when it does not say, so every task is checked. */
  applied: number | null;
  violations: number;
  causes: ViolationCause[];
}

function checkInvariants(domain: InvariantSettings, tasks: readonly TaskInput[]) {
  const checked = invariantsOf(domain);
  const violations: InvariantViolation[] = [];
  const applied = checked.map(() => 0);
  for (const task of tasks) {
    checked.forEach(({ invariant }, i) => {
      if (invariant.appliesTo?.(task)) applied[i]!++;
      const message = invariant.check(task);
      if (message) violations.push({ taskId: task.id, invariant: invariant.name, message });
    });
  }
  return { checked, violations, applied };
}

const EXAMPLES = 3;

function causesOf(violations: readonly InvariantViolation[]): ViolationCause[] {
  const byMessage = new Map<string, ViolationCause>();
  for (const v of violations) {
    const cause = byMessage.get(v.message) ?? { message: v.message, count: 0, examples: [] };
    cause.count++;
    if (cause.examples.length < EXAMPLES) cause.examples.push(v.taskId);
    byMessage.set(v.message, cause);
  }
  return [...byMessage.values()].sort((a, b) => b.count - a.count);
}

function resultsOf(
  checked: { invariant: TaskInvariant; builtIn: boolean }[],
  applied: number[],
  violations: readonly InvariantViolation[],
): InvariantResult[] {
  return checked.map(({ invariant, builtIn }, i) => {
    const own = violations.filter((v) => v.invariant === invariant.name);
    return {
      name: invariant.name,
      description: invariant.description,
      builtIn,
      applied: invariant.appliesTo ? applied[i]! : null,
      violations: own.length,
      causes: causesOf(own),
    };
  });
}

export interface InvariantSample {
  domain: string;
  tasks: number;
  /** Names of the invariants checked. */
  invariants: string[];
  /** Built-in invariants the pack turned off, with its reasons. */
  turnedOff: { name: string; reason: string }[];
  violations: InvariantViolation[];
  results: InvariantResult[];
}

/**
 * One set's tasks from the pack's generator; a generator that throws is one line naming the pack, split and profile,
 * followed by `consequence` (e.g. "nothing was written").
 */
export function generateOrExplain(
  domain: DomainDefinition,
  options: { seed: number; split: Split; profile: Profile; count: number },
  what: string,
  consequence?: string,
): TaskInput[] {
  try {
    return domain.generateTasks(options);
  } catch (err) {
    throw new UserError(
      `${what}: ${domain.name} ${options.split}/${options.profile}: the generator failed: ${(err as Error).message}${consequence ? `; ${consequence}` : ''}`,
    );
  }
}

/**
 * One set's tasks, generated and checked against every invariant the pack keeps: what `tasks generate` (and
 * `demo --pack`) write. A set that breaks one is an error, with one grouped line per cause, and nothing is written.
 */
export function checkedTaskSet(
  domain: DomainDefinition,
  options: { seed: number; split: Split; profile: Profile; count: number },
  what: string,
): TaskInput[] {
  const tasks = generateOrExplain(domain, options, what, 'nothing was written');
  const results = invariantResults(domain, tasks);
  const broken = results.reduce((n, r) => n + r.violations, 0);
  if (broken)
    throw new UserError(
      `${what}: ${domain.name} ${options.split}/${options.profile}: ${broken} violation(s) of the invariants; nothing was written\n${describeInvariantResults(results.filter((r) => r.violations)).join('\n')}`,
    );
  return tasks;
}

/** The profiles to check or generate: the given one (which the pack must serve), else every profile it serves. */
export function servedProfiles(domain: DomainDefinition, profiles: readonly Profile[], what: string): Profile[] {
  if (profiles.length === 1 && !servesProfile(domain, profiles[0]!))
    throw new UserError(
      `${what}: ${domain.name} does not serve the ${profiles[0]} profile (it declares no policy.${profiles[0]} and profileTools.${profiles[0]})`,
    );
  return profiles.filter((p) => servesProfile(domain, p));
}

/** Generate `count` tasks per seed, split and served profile, and check every invariant on them. */
export function sampleInvariants(
  domain: DomainDefinition,
  options: { seeds: number[]; count: number; splits?: readonly Split[]; profiles?: readonly Profile[] },
): InvariantSample {
  const profiles = servedProfiles(domain, options.profiles ?? ['full', 'mini'], 'finalstate tasks check');
  const tasks: TaskInput[] = [];
  for (const seed of options.seeds)
    for (const split of options.splits ?? (['train', 'eval'] as const))
      for (const profile of profiles)
        tasks.push(
          ...generateOrExplain(domain, { seed, split, profile, count: options.count }, 'finalstate tasks check'),
        );
  const { checked, violations, applied } = checkInvariants(domain, tasks);
  return {
    domain: domain.name,
    tasks: tasks.length,
    invariants: checked.map((c) => c.invariant.name),
    turnedOff: Object.entries(domain.turnOffInvariants ?? {}).map(([name, reason]) => ({ name, reason })),
    violations,
    results: resultsOf(checked, applied, violations),
  };
}

/** The results of `tasks`' check, one entry per invariant, violations grouped by cause. */
export function invariantResults(domain: InvariantSettings, tasks: readonly TaskInput[]): InvariantResult[] {
  const { checked, violations, applied } = checkInvariants(domain, tasks);
  return resultsOf(checked, applied, violations);
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Lines for a person: per invariant, whether it held, how many tasks it concerned, and each cause of violation once
 * with its count and examples; a built-in one that failed says what it protects and how to turn it off.
 */
export function describeInvariantResults(results: readonly InvariantResult[]): string[] {
  const lines: string[] = [];
  for (const r of results) {
    const scope =
      r.applied === null
        ? ''
        : r.applied === 0
          ? ', concerned no task of the sample'
          : `, concerned ${count(r.applied)} task(s)`;
    lines.push(
      `  ${r.violations ? 'FAIL' : 'ok  '} ${r.name}${r.builtIn ? ' (built-in)' : ''}${scope}: ${r.violations ? `${count(r.violations)} violation(s)` : 'holds'}`,
    );
    for (const c of r.causes)
      lines.push(
        `         ${count(c.count)} x ${c.message} (e.g. ${c.examples.join(', ')}${c.count > c.examples.length ? ', …' : ''})`,
      );
    const builtIn = BUILT_IN_INVARIANTS.find((i) => i.name === r.name);
    if (builtIn && r.violations)
      lines.push(
        `         it catches ${builtIn.protects}`,
        `         turn it off (turnOffInvariants, with the reason) only when ${builtIn.turnOffWhen}; see ${INVARIANTS_DOC}`,
      );
    if (builtIn === refusalsAreReadOnly && r.applied === 0)
      lines.push(
        `         no task is tagged ${REFUSAL_TAGS.join(' or ')}: a refusal tagged otherwise is not checked; tag refusals ${REFUSAL_TAGS[0]}`,
      );
  }
  return lines;
}

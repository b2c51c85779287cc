import type { Profile, Split, TaskInput } from '../schemas/task.js';
import { servesProfile, type DomainDefinition, type TaskInvariant } from './domain.js';

/** Invariants every pack keeps, whatever it declares: a refusal changes nothing (the agent only explains). */
export const GENERIC_INVARIANTS: TaskInvariant[] = [
  {
    name: 'refusals-are-read-only',
    description: 'a task tagged refuse or declined has the read-only tag: its golden solution makes no write',
    check: (task) =>
      (task.tags ?? []).some((t) => t === 'refuse' || t === 'declined') && !(task.tags ?? []).includes('read-only')
        ? 'tagged refuse/declined but its golden solution writes'
        : undefined,
  },
];

export interface InvariantViolation {
  taskId: string;
  invariant: string;
  message: string;
}

/** The violations of the pack's invariants (and the generic ones) among `tasks`. */
export function invariantViolations(domain: DomainDefinition, tasks: readonly TaskInput[]): InvariantViolation[] {
  const invariants = [...GENERIC_INVARIANTS, ...(domain.invariants ?? [])];
  const violations: InvariantViolation[] = [];
  for (const task of tasks) {
    for (const invariant of invariants) {
      const message = invariant.check(task);
      if (message) violations.push({ taskId: task.id, invariant: invariant.name, message });
    }
  }
  return violations;
}

export interface InvariantSample {
  domain: string;
  tasks: number;
  invariants: string[];
  violations: InvariantViolation[];
}

/** Generate `count` tasks per seed, split and served profile, and check every invariant on them. */
export function sampleInvariants(
  domain: DomainDefinition,
  options: { seeds: number[]; count: number; splits?: readonly Split[]; profiles?: readonly Profile[] },
): InvariantSample {
  let tasks = 0;
  const violations: InvariantViolation[] = [];
  for (const seed of options.seeds) {
    for (const split of options.splits ?? (['train', 'eval'] as const)) {
      for (const profile of (options.profiles ?? (['full', 'mini'] as const)).filter((p) => servesProfile(domain, p))) {
        const generated = domain.generateTasks({ seed, split, profile, count: options.count });
        tasks += generated.length;
        violations.push(...invariantViolations(domain, generated));
      }
    }
  }
  return {
    domain: domain.name,
    tasks,
    invariants: [...GENERIC_INVARIANTS, ...(domain.invariants ?? [])].map((i) => i.name),
    violations,
  };
}

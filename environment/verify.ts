import { randomBytes } from 'node:crypto';
import { mapLimited } from '../core/concurrency.js';
import type { DiffKind, StateCheck } from '../schemas/grading.js';
import type { Task, ToolCall } from '../schemas/task.js';
import type { EnvironmentBackend } from './backend.js';
import type { DomainDefinition, ToolDefinition } from './domain.js';
import { connectEpisodeTools } from './episode-tools.js';
import type { ExpectedStates } from './expected-state.js';
import { checkFinalState, finalStateHolds } from './grader.js';
import { AssertionQueryError } from './sql-assertions.js';

export const READ_ONLY_TAG = 'read-only';

export type MutationKind = 'drop_write' | 'duplicate_write' | 'alter_argument';

/** The diff classes that show each mutation for what it is. */
export const MUTATION_DIFF_CLASSES: Record<MutationKind, DiffKind[]> = {
  drop_write: ['missing_row', 'changed_value', 'unexpected_row'],
  duplicate_write: ['unexpected_row', 'changed_value'],
  alter_argument: ['changed_value', 'missing_row', 'unexpected_row'],
};

export interface Mutation {
  kind: MutationKind;
  calls: ToolCall[];
  description: string;
}

function enumOptions(schema: unknown): unknown[] | undefined {
  let node = schema as { options?: unknown; unwrap?: () => unknown } | undefined;
  for (let depth = 0; node && depth < 4; depth++) {
    if (Array.isArray(node.options)) return node.options;
    node = typeof node.unwrap === 'function' ? (node.unwrap() as typeof node) : undefined;
  }
  return undefined;
}

/** Another valid-looking value: another enum member, a number + 1, a flipped boolean, an edited string. */
function alterValue(schema: unknown, value: unknown): unknown {
  const other = enumOptions(schema)?.find((o) => o !== value);
  if (other !== undefined) return other;
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'string') return `${value}-altered`;
  return undefined;
}

/** Enum arguments first (a changed choice is a changed outcome), then numbers, booleans, strings. */
function argumentOrder(tool: ToolDefinition, args: Record<string, unknown>): string[] {
  const rank = (key: string) =>
    enumOptions(tool.input[key]) ? 0 : typeof args[key] === 'number' ? 1 : typeof args[key] === 'boolean' ? 2 : 3;
  return Object.keys(args).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * Mutations of the golden solution: drop its last write; alter one argument of its last write; duplicate a write
 * (the candidates, last write first: a duplicate the tools reject changes nothing and is no mutation, so the next
 * candidate is tried). A task without writes has none.
 */
export function mutationsOf(
  task: Task,
  domain: DomainDefinition,
): { drop?: Mutation; alter?: Mutation; duplicates: (Mutation & { duplicateIndex: number })[] } {
  const tools = new Map(domain.tools.map((t) => [t.name, t]));
  const writes = task.golden.map((c, i) => ({ c, i })).filter(({ c }) => tools.get(c.tool)?.readOnly === false);
  const last = writes[writes.length - 1];
  if (!last) return { duplicates: [] };
  const golden = task.golden;
  const drop: Mutation = {
    kind: 'drop_write',
    calls: golden.filter((_, i) => i !== last.i),
    description: `drop golden[${last.i}] (${last.c.tool})`,
  };
  const duplicates = [...writes].reverse().map(({ c, i }) => ({
    kind: 'duplicate_write' as const,
    calls: [...golden.slice(0, i + 1), c, ...golden.slice(i + 1)],
    description: `duplicate golden[${i}] (${c.tool})`,
    duplicateIndex: i + 1,
  }));
  const tool = tools.get(last.c.tool)!;
  for (const key of argumentOrder(tool, last.c.arguments)) {
    const altered = alterValue(tool.input[key], last.c.arguments[key]);
    if (altered === undefined) continue;
    const call = { tool: last.c.tool, arguments: { ...last.c.arguments, [key]: altered } };
    const alter: Mutation = {
      kind: 'alter_argument',
      calls: golden.map((c, i) => (i === last.i ? call : c)),
      description: `golden[${last.i}].arguments.${key} = ${JSON.stringify(altered)}`,
    };
    return { drop, alter, duplicates };
  }
  return { drop, duplicates };
}

export interface VerifyCounts {
  tasks: number;
  oracle: { passed: number; total: number };
  noop: { passed: number; readOnly: number };
  mutations: { total: number; failedAsExpected: number };
}

export interface VerifyReport extends VerifyCounts {
  byDomain: Record<string, VerifyCounts>;
  /** Every expectation that did not hold: the oracle failed, the no-op passed a task that changes state (or failed a read-only one), a mutation passed or failed with the wrong diff class, or a tool call faulted (an error that is not a rejection). */
  problems: { taskId: string; agent: string; message: string }[];
  /** Tasks with writes whose every duplicated write the tools reject (so no duplicate mutation exists). */
  duplicatesAbsorbed: string[];
}

const emptyCounts = (): VerifyCounts => ({
  tasks: 0,
  oracle: { passed: 0, total: 0 },
  noop: { passed: 0, readOnly: 0 },
  mutations: { total: 0, failedAsExpected: 0 },
});

/**
 * Run the oracle (golden calls), the no-op agent and mutated oracles for each task on real backends, through the
 * episode's MCP server, and check: the oracle passes, the no-op passes exactly the read-only tasks, and every
 * mutation fails with a diff class that matches it.
 */
export async function verifyTasks(
  backend: EnvironmentBackend,
  expected: ExpectedStates,
  tasks: Task[],
  options: { concurrency?: number; onProgress?: (done: number) => void } = {},
): Promise<VerifyReport> {
  const total = emptyCounts();
  const byDomain: Record<string, VerifyCounts> = {};
  const problems: VerifyReport['problems'] = [];
  const run = randomBytes(4).toString('hex');
  const duplicatesAbsorbed: string[] = [];
  let plays = 0;
  const play = async (
    task: Task,
    calls: ToolCall[],
    label: string,
  ): Promise<{ report: StateCheck; errors: boolean[] }> => {
    const episode = await backend.provision(`verify-${run}-${++plays}-${label}-${task.id}`, task);
    const tools = await connectEpisodeTools(backend, episode);
    try {
      const errors = [];
      for (const [i, call] of calls.entries()) {
        const result = await tools.client.callTool(call.tool, call.arguments);
        // A fault is a bug in the tool, never an answer: with a rejection class the executor does not recognise, every rejection would be one.
        if (result.fault)
          problems.push({
            taskId: task.id,
            agent: label,
            message: `call ${i} (${call.tool}) failed with a tool fault instead of a rejection: ${result.fault}`,
          });
        errors.push(result.isError);
      }
      return { report: await checkFinalState(backend, expected, episode), errors };
    } finally {
      await tools.close();
      await backend.teardown(episode);
    }
  };
  const verifyOne = async (task: Task) => {
    const counts = (byDomain[task.domain] ??= emptyCounts());
    const bump = (fn: (c: VerifyCounts) => void) => [total, counts].forEach(fn);
    bump((c) => {
      c.tasks++;
      c.oracle.total++;
    });
    let oracle: StateCheck;
    try {
      oracle = (await play(task, task.golden, 'oracle')).report;
    } catch (err) {
      // a wrong assertion fails every agent alike: reported once, against the task
      if (!(err instanceof AssertionQueryError)) throw err;
      problems.push({ taskId: task.id, agent: 'oracle', message: err.message });
      return;
    }
    if (finalStateHolds(oracle)) bump((c) => c.oracle.passed++);
    else
      problems.push({
        taskId: task.id,
        agent: 'oracle',
        message: `oracle failed: ${JSON.stringify(oracle.diff.slice(0, 3))}`,
      });
    const readOnly = task.tags.includes(READ_ONLY_TAG);
    if (readOnly) bump((c) => c.noop.readOnly++);
    const noopHolds = finalStateHolds((await play(task, [], 'noop')).report);
    if (noopHolds) bump((c) => c.noop.passed++);
    if (noopHolds !== readOnly)
      problems.push({
        taskId: task.id,
        agent: 'noop',
        message: readOnly ? 'no-op failed a task tagged read-only' : 'no-op passed a task that is not tagged read-only',
      });
    const { drop, alter, duplicates } = mutationsOf(task, backend.registry.get(task.domain));
    const judge = (mutation: Mutation, report: StateCheck) => {
      bump((c) => c.mutations.total++);
      const classes = [...new Set(report.diff.map((d) => d.kind))];
      const matches = classes.some((k) => MUTATION_DIFF_CLASSES[mutation.kind].includes(k));
      const holds = finalStateHolds(report);
      if (!holds && matches) bump((c) => c.mutations.failedAsExpected++);
      else
        problems.push({
          taskId: task.id,
          agent: mutation.kind,
          message: `${mutation.description}: ${holds ? 'passed' : `failed with diff classes [${classes.join(', ')}]`}`,
        });
    };
    for (const mutation of [drop, alter])
      if (mutation) judge(mutation, (await play(task, mutation.calls, mutation.kind)).report);
    let duplicated = false;
    for (const mutation of duplicates) {
      const { report, errors } = await play(task, mutation.calls, mutation.kind);
      if (errors[mutation.duplicateIndex]) continue; // the tools refused the duplicate: nothing was duplicated
      judge(mutation, report);
      duplicated = true;
      break;
    }
    if (duplicates.length && !duplicated) duplicatesAbsorbed.push(task.id);
  };
  let done = 0;
  await mapLimited(tasks, Math.max(1, options.concurrency ?? 2), async (task) => {
    await verifyOne(task);
    options.onProgress?.(++done);
  });
  const order = new Map(tasks.map((t, i) => [t.id, i]));
  const byTask = (a: { taskId: string }, b: { taskId: string }) => order.get(a.taskId)! - order.get(b.taskId)!;
  problems.sort(byTask);
  duplicatesAbsorbed.sort((a, b) => order.get(a)! - order.get(b)!);
  return {
    ...total,
    byDomain: Object.fromEntries(Object.entries(byDomain).sort(([a], [b]) => a.localeCompare(b))),
    problems,
    duplicatesAbsorbed,
  };
}

import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { DiffKind, GradeReport } from '../schemas/grading.js';
import type { Task, ToolCall } from '../schemas/task.js';
import type { EnvironmentBackend } from './backend.js';
import type { DomainDefinition, ToolDefinition } from './domain.js';
import { connectEpisodeTools } from './episode-tools.js';
import type { ExpectedStates } from './expected-state.js';
import { gradeEpisode } from './grader.js';

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

/** Change one argument to another valid-looking value: another enum member, a number + 1, a flipped boolean, an edited string. */
function alterValue(schema: z.ZodType | undefined, value: unknown): unknown {
  const options = (schema as { options?: unknown[] } | undefined)?.options ?? (schema as { unwrap?: () => { options?: unknown[] } })?.unwrap?.().options;
  if (Array.isArray(options)) {
    const other = options.find((o) => o !== value);
    if (other !== undefined) return other;
  }
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'string') return `${value}-altered`;
  return undefined;
}

function argumentOrder(tool: ToolDefinition, args: Record<string, unknown>): string[] {
  const rank = (key: string) => {
    const schema = tool.input[key] as { options?: unknown } | undefined;
    if (schema && Array.isArray(schema.options)) return 0;
    return typeof args[key] === 'number' ? 1 : typeof args[key] === 'boolean' ? 2 : 3;
  };
  return Object.keys(args).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Mutations of the golden solution around its last write; none for a task without writes. */
export function mutationsOf(task: Task, domain: DomainDefinition): Mutation[] {
  const tools = new Map(domain.tools.map((t) => [t.name, t]));
  const writes = task.golden.map((c, i) => ({ c, i })).filter(({ c }) => tools.get(c.tool)?.readOnly === false);
  const last = writes[writes.length - 1];
  if (!last) return [];
  const golden = task.golden;
  const mutations: Mutation[] = [
    { kind: 'drop_write', calls: golden.filter((_, i) => i !== last.i), description: `drop golden[${last.i}] (${last.c.tool})` },
    { kind: 'duplicate_write', calls: [...golden.slice(0, last.i + 1), last.c, ...golden.slice(last.i + 1)], description: `duplicate golden[${last.i}] (${last.c.tool})` },
  ];
  const tool = tools.get(last.c.tool)!;
  for (const key of argumentOrder(tool, last.c.arguments)) {
    const altered = alterValue(tool.input[key] as z.ZodType | undefined, last.c.arguments[key]);
    if (altered === undefined) continue;
    const call = { tool: last.c.tool, arguments: { ...last.c.arguments, [key]: altered } };
    mutations.push({ kind: 'alter_argument', calls: golden.map((c, i) => (i === last.i ? call : c)), description: `golden[${last.i}].arguments.${key} = ${JSON.stringify(altered)}` });
    break;
  }
  return mutations;
}

export interface VerifyCounts {
  tasks: number;
  oracle: { passed: number; total: number };
  noop: { passed: number; readOnly: number };
  mutations: { total: number; failedAsExpected: number };
}

export interface VerifyReport extends VerifyCounts {
  byDomain: Record<string, VerifyCounts>;
  /** Every expectation that did not hold: the oracle failed, the no-op passed a task that changes state (or failed a read-only one), or a mutation passed or failed with the wrong diff class. */
  problems: { taskId: string; agent: string; message: string }[];
}

const emptyCounts = (): VerifyCounts => ({ tasks: 0, oracle: { passed: 0, total: 0 }, noop: { passed: 0, readOnly: 0 }, mutations: { total: 0, failedAsExpected: 0 } });

/**
 * Run the oracle (golden calls), the no-op agent and mutated oracles for each task on real backends, through the
 * episode's MCP server, and check: the oracle passes, the no-op passes exactly the read-only tasks, and every
 * mutation fails with a diff class that matches it.
 */
export async function verifyTasks(backend: EnvironmentBackend, expected: ExpectedStates, tasks: Task[], onProgress?: (done: number) => void): Promise<VerifyReport> {
  const total = emptyCounts();
  const byDomain: Record<string, VerifyCounts> = {};
  const problems: VerifyReport['problems'] = [];
  const run = randomBytes(4).toString('hex');
  const play = async (task: Task, calls: ToolCall[], label: string): Promise<GradeReport> => {
    const episode = await backend.provision(`verify-${run}-${label}-${task.id}`, task);
    const tools = await connectEpisodeTools(backend, episode);
    try {
      for (const call of calls) await tools.client.callTool(call.tool, call.arguments);
      return await gradeEpisode(backend, expected, { episode });
    } finally {
      await tools.close();
      await backend.teardown(episode);
    }
  };
  for (const [n, task] of tasks.entries()) {
    const counts = (byDomain[task.domain] ??= emptyCounts());
    const bump = (fn: (c: VerifyCounts) => void) => [total, counts].forEach(fn);
    bump((c) => { c.tasks++; c.oracle.total++; });
    const oracle = await play(task, task.golden, 'oracle');
    if (oracle.pass) bump((c) => c.oracle.passed++);
    else problems.push({ taskId: task.id, agent: 'oracle', message: `oracle failed: ${JSON.stringify(oracle.diff.slice(0, 3))}` });
    const readOnly = task.tags.includes(READ_ONLY_TAG);
    if (readOnly) bump((c) => c.noop.readOnly++);
    const noop = await play(task, [], 'noop');
    if (noop.pass) bump((c) => c.noop.passed++);
    if (noop.pass !== readOnly) problems.push({ taskId: task.id, agent: 'noop', message: readOnly ? 'no-op failed a task tagged read-only' : 'no-op passed a task that is not tagged read-only' });
    for (const mutation of mutationsOf(task, backend.registry.get(task.domain))) {
      bump((c) => c.mutations.total++);
      const report = await play(task, mutation.calls, mutation.kind);
      const classes = [...new Set(report.diff.map((d) => d.kind))];
      const matches = classes.some((k) => MUTATION_DIFF_CLASSES[mutation.kind].includes(k));
      if (!report.pass && matches) bump((c) => c.mutations.failedAsExpected++);
      else problems.push({ taskId: task.id, agent: mutation.kind, message: `${mutation.description}: ${report.pass ? 'passed' : `failed with diff classes [${classes.join(', ')}]`}` });
    }
    onProgress?.(n + 1);
  }
  return { ...total, byDomain, problems };
}

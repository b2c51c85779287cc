import type { ToolDefinition } from '../../environment/domain.js';
import type { TaskInput, ToolCall } from '../../schemas/task.js';
import type { JsonRow } from './sql.js';

/**
 * Reading a task and editing its golden calls, for the packs' rule-breaking paths (DomainDefinition.ruleBreakingPath):
 * a path is the golden solution with one decision changed, built only from what the task states.
 */

/** The first row of `table` in the task's init that satisfies `match`. */
export function initRow(
  task: TaskInput,
  table: string,
  match: (row: Record<string, unknown>) => boolean = () => true,
): Record<string, unknown> | undefined {
  return task.init?.upsert?.[table]?.find(match);
}

/** The arguments of the first golden call of `tool`. */
export function goldenArguments(task: TaskInput, tool: string): Record<string, unknown> | undefined {
  return task.golden.find((c) => c.tool === tool)?.arguments;
}

/** The golden calls with the first call of `tool` given other arguments, or nothing when there is no such call. */
export function withArguments(task: TaskInput, tool: string, change: Record<string, unknown>): ToolCall[] | undefined {
  const at = task.golden.findIndex((c) => c.tool === tool);
  if (at < 0) return undefined;
  return task.golden.map((c, i) => (i === at ? { tool, arguments: { ...c.arguments, ...change } } : c));
}

/** The golden calls without those of `tool`, or nothing when there is no such call. */
export function withoutCall(task: TaskInput, tool: string): ToolCall[] | undefined {
  return task.golden.some((c) => c.tool === tool) ? task.golden.filter((c) => c.tool !== tool) : undefined;
}

/** Every row of `table` in the task's init. */
export function initRows(task: TaskInput, table: string): JsonRow[] {
  return (task.init?.upsert?.[table] ?? []) as JsonRow[];
}

/** The look-ups of the golden solution: a careless agent reads what a careful one reads, then decides wrongly. */
export function goldenLookups(task: TaskInput, tools: readonly ToolDefinition[]): ToolCall[] {
  const readOnly = new Set(tools.filter((t) => t.readOnly).map((t) => t.name));
  return task.golden.filter((c) => readOnly.has(c.tool));
}

import { call, goldenArguments, initRow, type TaskInput, type ToolCall } from 'finalstate/domain';
import { RULES } from './policy.js';

/**
 * Optional: what a careless agent that knows the tools does against one rule of the mini policy. When the base model
 * is built with a rule-breaking share, that share of a task family is demonstrated by this path instead of the golden
 * calls, so the base applies the rules inconsistently and training has something to fix. Every call must be one the
 * tools accept, and the grader must reject the result. A pure function of the task; nothing for other families.
 */
export function ruleBreakingPath(task: TaskInput): ToolCall[] | undefined {
  if (task.profile !== 'mini' || task.tags?.[0] !== 'extend_refused') return undefined;
  // Rule: at most RULES.maxExtensions extensions. The careless agent extends once more anyway.
  const rentalId = goldenArguments(task, 'get_rental')?.rental_id;
  const rental = initRow(task, 'rentals', (r) => r.rental_id === rentalId);
  if (typeof rentalId !== 'string' || Number(rental?.extensions) < RULES.maxExtensions) return undefined;
  return [...task.golden, call('extend_rental', { rental_id: rentalId, days: 1 })];
}

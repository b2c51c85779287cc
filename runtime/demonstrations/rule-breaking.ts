import { contentHash } from '../../environment/canonical.js';
import type { DomainDefinition } from '../../environment/domain.js';
import type { EpisodeRecord } from '../../schemas/episode.js';
import type { Task, ToolCall } from '../../schemas/task.js';
import { taskFamily } from '../../stats/task-family.js';

/**
 * Which training tasks are demonstrated by their pack's rule-breaking path: in every task type (first tag) of every
 * domain, `share` of the tasks that have such a path, rounded to the nearest task, chosen by the hash of their id
 * (a fixed choice that does not depend on file order). Eval-split tasks are never asked.
 */
export function ruleBreakingPlan(
  tasks: readonly Task[],
  domains: readonly DomainDefinition[],
  share: number,
): Map<string, ToolCall[]> {
  if (!(share >= 0 && share <= 1)) throw new RangeError(`rule-breaking share must be within [0, 1], got ${share}`);
  const byName = new Map(domains.map((d) => [d.name, d]));
  const families = new Map<string, { task: Task; calls: ToolCall[] }[]>();
  for (const task of tasks) {
    if (task.split !== 'train') continue;
    const calls = byName.get(task.domain)?.ruleBreakingPath?.(task);
    if (!calls || calls.length === 0) continue;
    const family = taskFamily(task);
    families.set(family, [...(families.get(family) ?? []), { task, calls }]);
  }
  const plan = new Map<string, ToolCall[]>();
  for (const members of families.values()) {
    const ranked = members
      .map((m) => ({ ...m, rank: contentHash(m.task.id) }))
      .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
    for (const { task, calls } of ranked.slice(0, Math.round(share * ranked.length))) plan.set(task.id, calls);
  }
  return plan;
}

/**
 * Why a rule-breaking episode cannot serve as a demonstration, or nothing when it can: every call must have run
 * without an error (a path the tools refuse is not plausible), and the grader must have rejected the final state
 * (a path it accepts breaks no rule).
 */
export function ruleBreakingProblem(record: EpisodeRecord, calls: readonly ToolCall[]): string | undefined {
  const refused = record.toolCalls.find((c) => c.isError || c.index === null);
  if (refused) return `${refused.tool} answered an error: ${refused.result.slice(0, 200)}`;
  if (record.toolCalls.length !== calls.length)
    return `${record.toolCalls.length} of the path's ${calls.length} calls ran (${record.outcome.finishReason})`;
  if (record.outcome.reward !== 0) return 'the grader accepted the final state: the path breaks no rule';
  return undefined;
}

import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { TaskInfo } from '../schemas/pipeline.js';

/** Typed keys of the search attributes `finalstate dev up` registers (infra/stack/temporal.ts SEARCH_ATTRIBUTES). */
export const CampaignIdKey = defineSearchAttributeKey('CampaignId', SearchAttributeType.KEYWORD);
export const StepKey = defineSearchAttributeKey('Step', SearchAttributeType.INT);
export const TaskIdKey = defineSearchAttributeKey('TaskId', SearchAttributeType.KEYWORD);
export const DomainKey = defineSearchAttributeKey('Domain', SearchAttributeType.KEYWORD);
export const SplitKey = defineSearchAttributeKey('Split', SearchAttributeType.KEYWORD);

/**
 * TaskId, Domain and Split of a workflow whose episodes run these tasks, each only when all of them share one value
 * (the attributes are single keywords): an evaluation of one domain gets Domain, a one-task run gets TaskId too.
 */
export function taskSearchAttributes(
  tasks: ReadonlyArray<Pick<TaskInfo, 'taskId' | 'domain' | 'split'>>,
): SearchAttributePair[] {
  const only = <T>(values: T[]): T | undefined => (new Set(values).size === 1 ? values[0] : undefined);
  const taskId = only(tasks.map((t) => t.taskId));
  const domain = only(tasks.map((t) => t.domain));
  const split = only(tasks.map((t) => t.split));
  return [
    ...(taskId !== undefined ? [{ key: TaskIdKey, value: taskId }] : []),
    ...(domain !== undefined ? [{ key: DomainKey, value: domain }] : []),
    ...(split !== undefined ? [{ key: SplitKey, value: split }] : []),
  ];
}

import type { StateDiffEntry } from '../../../schemas/grading.js';

/** What one entry of the final-state diff changed, as `table.column` or `table row` words. */
export function diffWord(entry: StateDiffEntry): string {
  switch (entry.kind) {
    case 'changed_value':
      return `changed ${entry.table}.${entry.column}`;
    case 'missing_row':
      return `missing ${entry.table} row`;
    case 'unexpected_row':
      return `extra ${entry.table} row`;
    case 'deleted_row':
      return `deleted ${entry.table} row`;
  }
}

/** The distinct diff words, in order of first appearance, at most `max` of them and "+N more". */
export function diffWords(diff: readonly StateDiffEntry[], max = 2): string {
  const words = [...new Set(diff.map(diffWord))];
  if (words.length <= max) return words.join(', ');
  return `${words.slice(0, max).join(', ')} +${words.length - max} more`;
}

export interface SummaryFacts {
  taskId: string;
  trial: number;
  reward: 0 | 1;
  diff: readonly StateDiffEntry[];
  failedAssertions: number;
  failedRubrics: number;
  toolCalls: number;
  finishReason: string;
}

/**
 * One line per episode, for the Temporal UI and episode lists, e.g.
 * `retail-042 t3 · reward 0 · changed orders.status · 5 calls · agent_done`.
 */
export function episodeSummaryLine(f: SummaryFacts): string {
  const verdict = f.diff.length
    ? diffWords(f.diff)
    : f.failedAssertions
      ? `${f.failedAssertions} assertion${f.failedAssertions === 1 ? '' : 's'} failed`
      : f.failedRubrics
        ? `${f.failedRubrics} rubric${f.failedRubrics === 1 ? '' : 's'} failed`
        : 'state matches';
  return [
    `${f.taskId} t${f.trial}`,
    `reward ${f.reward}`,
    verdict,
    `${f.toolCalls} call${f.toolCalls === 1 ? '' : 's'}`,
    f.finishReason,
  ].join(' · ');
}

import type { ResultRow } from '../../schemas/results.js';

const noTokens = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

/** Builds a result row with zero usage; tests override what they care about. */
export function row(taskId: string, trial: number, reward: 0 | 1, extra: Partial<ResultRow> = {}): ResultRow {
  return {
    taskId,
    domain: 'd1',
    split: 'eval',
    trial,
    tags: [],
    reward,
    error: null,
    usage: { agent: noTokens, user: noTokens, judge: noTokens },
    costUsd: 0,
    ...extra,
  };
}

/** Rows for one task from its rewards in trial order. */
export function taskRows(taskId: string, rewards: Array<0 | 1>, extra: Partial<ResultRow> = {}): ResultRow[] {
  return rewards.map((r, trial) => row(taskId, trial, r, extra));
}

export const toJsonl = (rows: readonly ResultRow[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

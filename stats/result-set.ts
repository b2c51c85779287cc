import fs from 'node:fs';
import { UserError } from '../core/errors.js';
import { ResultRow, type EpisodeError } from '../schemas/results.js';
import type { Split } from '../schemas/task.js';
import { taskFamily } from './task-family.js';

/** All rows of one task, checked for consistency, with outcomes in trial order. */
export interface TaskOutcomes {
  taskId: string;
  domain: string;
  split: Split;
  /** Sorted. */
  tags: string[];
  /** stats/task-family.ts: the domain and the first tag as the rows list them. */
  family: string;
  /** Rewards of the trials with an outcome (error null), ordered by trial. */
  outcomes: Array<0 | 1>;
  n: number;
  c: number;
  errors: Record<EpisodeError, number>;
  /** Every row of the task, errored ones included, ordered by trial. */
  rows: ResultRow[];
}

/** Parse a results JSONL text; any bad line fails the whole load, naming `source:line`. */
export function parseResultRows(text: string, source: string): ResultRow[] {
  const rows: ResultRow[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new UserError(`${source}:${i + 1}: not JSON: ${(err as Error).message}`);
    }
    const parsed = ResultRow.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(row)'}: ${issue.message}`)
        .join('; ');
      throw new UserError(`${source}:${i + 1}: not a result row: ${issues}`);
    }
    rows.push(parsed.data);
  }
  if (rows.length === 0) throw new UserError(`${source}: no result rows`);
  return rows;
}

export function readResultRows(file: string): ResultRow[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read results file ${file}: ${(err as Error).message}`);
  }
  return parseResultRows(text, file);
}

const sameTags = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');

/**
 * Group rows by task, sorted by task id. A task whose rows disagree on domain, split or tags, or that has two rows
 * for one trial, is an error naming it.
 */
export function groupByTask(rows: readonly ResultRow[], source = 'results'): TaskOutcomes[] {
  const byTask = new Map<string, ResultRow[]>();
  for (const row of rows) {
    const list = byTask.get(row.taskId);
    if (list) list.push(row);
    else byTask.set(row.taskId, [row]);
  }
  const tasks: TaskOutcomes[] = [];
  for (const [taskId, taskRows] of [...byTask].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    taskRows.sort((a, b) => a.trial - b.trial);
    const first = taskRows[0]!;
    for (let i = 0; i < taskRows.length; i++) {
      const row = taskRows[i]!;
      if (i > 0 && row.trial === taskRows[i - 1]!.trial)
        throw new UserError(`${source}: task ${JSON.stringify(taskId)} has two rows for trial ${row.trial}`);
      if (row.domain !== first.domain)
        throw new UserError(
          `${source}: task ${JSON.stringify(taskId)} has rows in domains ${first.domain} and ${row.domain}`,
        );
      if (row.split !== first.split)
        throw new UserError(
          `${source}: task ${JSON.stringify(taskId)} has rows in splits ${first.split} and ${row.split}`,
        );
      if (!sameTags(row.tags, first.tags))
        throw new UserError(`${source}: task ${JSON.stringify(taskId)} has rows with different tags`);
    }
    const valid = taskRows.filter((r) => r.error === null);
    const outcomes = valid.map((r) => r.reward);
    tasks.push({
      taskId,
      domain: first.domain,
      split: first.split,
      tags: [...first.tags].sort(),
      family: taskFamily(first),
      outcomes,
      n: outcomes.length,
      c: outcomes.reduce<number>((sum, r) => sum + r, 0),
      errors: {
        infra: taskRows.filter((r) => r.error === 'infra').length,
        grader: taskRows.filter((r) => r.error === 'grader').length,
      },
      rows: taskRows,
    });
  }
  return tasks;
}

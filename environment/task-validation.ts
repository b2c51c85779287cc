import { z } from 'zod';
import { UserError } from '../core/errors.js';
import { taskEnvironment, type Task } from '../schemas/task.js';
import type { EnvironmentBackend } from './backend.js';
import type { DatabaseCatalog } from './catalog.js';
import { servesProfile, type DomainDefinition } from './domain.js';
import { ExpectedStates, GoldenCallError } from './expected-state.js';
import { AssertionQueryError } from './sql-assertions.js';
import { readTaskSet, TaskSetError, type LoadedTaskSet, type TaskIssue } from './task-set.js';

type FieldIssue = { path: string; message: string };

/** The tiny embedded model's tasks stay short. */
const MINI_GOLDEN_CALLS = [1, 3] as const;

const isInteger = (v: unknown) =>
  (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v));
const isNumeric = (v: unknown) =>
  (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v));
const isTime = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v));

/** Which JSON values a column type accepts; types not listed accept anything PostgreSQL can parse. */
const COLUMN_VALUE_CHECKS: Record<string, [string, (v: unknown) => boolean]> = {
  int2: ['an integer', isInteger],
  int4: ['an integer', isInteger],
  int8: ['an integer', isInteger],
  numeric: ['a number', isNumeric],
  float4: ['a number', isNumeric],
  float8: ['a number', isNumeric],
  bool: ['a boolean', (v) => typeof v === 'boolean'],
  text: ['a string', (v) => typeof v === 'string'],
  varchar: ['a string', (v) => typeof v === 'string'],
  bpchar: ['a string', (v) => typeof v === 'string'],
  timestamptz: ['an ISO timestamp', isTime],
  timestamp: ['an ISO timestamp', isTime],
  date: ['an ISO date', isTime],
};

function checkRows(
  kind: 'upsert' | 'delete',
  rowsByTable: Record<string, Record<string, unknown>[]>,
  catalog: DatabaseCatalog,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const [table, rows] of Object.entries(rowsByTable)) {
    const info = catalog[table];
    if (!info) {
      issues.push({
        path: `init.${kind}.${table}`,
        message: `unknown table ${table} (tables: ${Object.keys(catalog).join(', ')})`,
      });
      continue;
    }
    rows.forEach((row, i) => {
      const at = `init.${kind}.${table}[${i}]`;
      for (const key of info.primaryKey)
        if (row[key] === undefined) issues.push({ path: at, message: `missing primary-key column ${key}` });
      for (const [column, value] of Object.entries(row)) {
        const type = info.columns[column];
        if (type === undefined) {
          issues.push({ path: `${at}.${column}`, message: `unknown column ${column} of table ${table}` });
          continue;
        }
        if (kind === 'delete' && !info.primaryKey.includes(column))
          issues.push({ path: `${at}.${column}`, message: 'delete rows name primary-key columns only' });
        const check = COLUMN_VALUE_CHECKS[type];
        if (value !== null && check && !check[1](value))
          issues.push({
            path: `${at}.${column}`,
            message: `expected ${check[0]} for ${type} column, got ${JSON.stringify(value)}`,
          });
      }
    });
  }
  return issues;
}

/** Check a task against its domain without running anything: tables, columns, value types, tools, arguments. */
export function checkTaskAgainstDomain(task: Task, domain: DomainDefinition, catalog: DatabaseCatalog): FieldIssue[] {
  const issues = [...checkRows('delete', task.init.delete, catalog), ...checkRows('upsert', task.init.upsert, catalog)];
  if (!servesProfile(domain, task.profile))
    issues.push({
      path: 'profile',
      message: `domain ${domain.name} does not serve the ${task.profile} profile (it declares no policy.${task.profile} and profileTools.${task.profile})`,
    });
  if (
    task.profile === 'mini' &&
    (task.golden.length < MINI_GOLDEN_CALLS[0] || task.golden.length > MINI_GOLDEN_CALLS[1])
  ) {
    issues.push({
      path: 'golden',
      message: `a mini task takes ${MINI_GOLDEN_CALLS[0]} to ${MINI_GOLDEN_CALLS[1]} tool calls, this one ${task.golden.length}`,
    });
  }
  const offered = new Set(domain.profileTools[task.profile]);
  task.golden.forEach((call, i) => {
    const tool = domain.tools.find((t) => t.name === call.tool);
    if (!tool) {
      issues.push({ path: `golden[${i}].tool`, message: `unknown tool ${call.tool}` });
      return;
    }
    if (!offered.has(call.tool))
      issues.push({
        path: `golden[${i}].tool`,
        message: `tool ${call.tool} is not offered in the ${task.profile} profile`,
      });
    const parsed = z.object(tool.input).strict().safeParse(call.arguments);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const sub = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
        issues.push({ path: `golden[${i}].arguments${sub}`, message: issue.message });
      }
    }
  });
  return issues;
}

/**
 * Fully validate a task-set file: format and manifest (readTaskSet), then each task against its domain, then its
 * golden calls replayed on a real backend (each must succeed, and every SQL assertion must run and hold on the result:
 * one whose query fails there, a syntax error or an unknown column, is reported against the task and assertion).
 * Throws TaskSetError with every issue; returns the set only when all of it is valid.
 */
export async function validateTaskSetFile(
  file: string,
  backend: EnvironmentBackend,
  expected: ExpectedStates,
): Promise<LoadedTaskSet> {
  const set = readTaskSet(file);
  const issues: TaskIssue[] = [];
  const at = (task: Task) => ({ file, line: set.lines.get(task.id)!, taskId: task.id });
  const replayable: Task[] = [];
  // One issue per unknown domain, not one per task: the cause and its fix are the same for all of them.
  const unknown = new Map<string, Task[]>();
  for (const task of set.tasks) {
    // A ThinkingBox task is checked by its schema here and played on ThinkingBox's servers by `tasks verify`; an OpenEnv
    // task by its schema, its server checked when it was imported (`tasks import-openenv` resets each task once).
    if (taskEnvironment(task) !== 'postgres') continue;
    if (!backend.registry.has(task.domain)) {
      unknown.set(task.domain, [...(unknown.get(task.domain) ?? []), task]);
      continue;
    }
    const domain = backend.registry.get(task.domain);
    const { catalog } = await backend.template(domain);
    const found = checkTaskAgainstDomain(task, domain, catalog);
    issues.push(...found.map((f) => ({ ...at(task), ...f })));
    if (!found.length) replayable.push(task);
  }
  for (const [name, tasks] of unknown)
    issues.unshift({
      ...at(tasks[0]!),
      path: 'domain',
      message: `${backend.registry.unknownDomain(name)} (${tasks.length} task(s) of this file)`,
    });
  for (const task of replayable) {
    try {
      const state = await expected.get(task);
      state.assertions.forEach((a, i) => {
        if (!a.pass)
          issues.push({
            ...at(task),
            path: `assertions[${i}]`,
            message: `does not hold on the golden final state: ${a.error ?? JSON.stringify(a.actual)}`,
          });
      });
    } catch (err) {
      if (err instanceof GoldenCallError)
        issues.push({ ...at(task), path: `golden[${err.callIndex}]`, message: `${err.tool} failed: ${err.reason}` });
      else if (err instanceof AssertionQueryError)
        issues.push({
          ...at(task),
          path: `assertions[${err.index}]`,
          message: `${JSON.stringify(err.description)}: the query fails on the golden final state: ${err.reason}; fix the assertion's SQL`,
        });
      else if (err instanceof UserError) issues.push({ ...at(task), path: 'init', message: err.message });
      else throw err;
    }
  }
  if (issues.length) throw new TaskSetError(issues);
  return set;
}

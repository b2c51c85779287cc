import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { UserError } from '../core/errors.js';
import { Task, TaskFileLimits, TaskSetManifest } from '../schemas/task.js';
import { contentHash } from './canonical.js';
import { fileLines, formatBytes } from './file-lines.js';

/** One problem in a task-set file, located by file, line, task id and field path. */
export interface TaskIssue {
  file: string;
  line?: number;
  taskId?: string;
  path: string;
  message: string;
}

export function formatIssue(issue: TaskIssue): string {
  const where = issue.line !== undefined ? `${issue.file}:${issue.line}` : issue.file;
  return `${where}: ${issue.taskId ? `task ${issue.taskId}: ` : ''}${issue.path || '(task)'}: ${issue.message}`;
}

/** A task set that failed to load: every issue found, and nothing of the set was loaded. */
export class TaskSetError extends UserError {
  override name = 'TaskSetError';
  constructor(readonly issues: TaskIssue[]) {
    super(
      `${issues.length} problem${issues.length === 1 ? '' : 's'} in task set:\n  ${issues.map(formatIssue).join('\n  ')}`,
    );
  }
}

export interface LoadedTaskSet {
  file: string;
  manifestFile: string;
  manifest: TaskSetManifest;
  tasks: Task[];
  /** Line of each task id in the JSONL file (1-based). */
  lines: Map<string, number>;
}

export const taskSha256 = (task: Task): string => contentHash(task);

export function manifestPathFor(jsonlFile: string): string {
  return jsonlFile.replace(/\.jsonl$/, '') + '.manifest.json';
}

const zodPath = (issuePath: PropertyKey[]) =>
  issuePath.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');

/** Why a file cannot be read within `maxBytes`, or undefined when it can. */
function sizeProblem(file: string, maxBytes: number, what: string, hint = ''): string | undefined {
  const stat = fs.statSync(file);
  if (!stat.isFile())
    return `a ${what} must be a regular file, this is ${stat.isDirectory() ? 'a directory' : 'a device, pipe or socket'}`;
  if (stat.size > maxBytes)
    return `${formatBytes(stat.size)}, over the ${formatBytes(maxBytes)} limit of a ${what}${hint}`;
  return undefined;
}

/** A manifest's text, or the issue that stops it being read. */
function readManifestText(manifestFile: string, limits: TaskFileLimits): string {
  const problem = sizeProblem(manifestFile, limits.maxManifestBytes, 'task-set manifest');
  if (problem) throw new TaskSetError([{ file: manifestFile, path: '', message: problem }]);
  return fs.readFileSync(manifestFile, 'utf8');
}

/** The JSONL file a manifest names (relative to the manifest). */
function taskFileOfManifest(manifestFile: string, limits: TaskFileLimits): string {
  try {
    const manifest = TaskSetManifest.parse(JSON.parse(readManifestText(manifestFile, limits)));
    return path.resolve(path.dirname(manifestFile), manifest.file);
  } catch (err) {
    if (err instanceof TaskSetError) throw err;
    throw new TaskSetError([
      { file: manifestFile, path: '', message: `not a readable task-set manifest: ${(err as Error).message}` },
    ]);
  }
}

/**
 * Read and check a task-set file (JSONL, one task per line; given directly or by its manifest) and its manifest:
 * size limits, JSON syntax, the zod task schema (assertions included: one read-only query each), duplicate ids, at
 * least one task, manifest ids and content hashes. The file is read line by line, never whole. Collects every issue
 * and throws them together; returns only a fully valid set.
 */
export function readTaskSet(fileOrManifest: string, limits: Partial<TaskFileLimits> = {}): LoadedTaskSet {
  const bounds = TaskFileLimits.parse(limits);
  const file = fileOrManifest.endsWith('.manifest.json') ? taskFileOfManifest(fileOrManifest, bounds) : fileOrManifest;
  const issues: TaskIssue[] = [];
  if (!fs.existsSync(file)) throw new TaskSetError([{ file, path: '', message: 'file does not exist' }]);
  const unreadable = sizeProblem(
    file,
    bounds.maxFileBytes,
    'task-set file',
    ' (split it into several task sets in one directory)',
  );
  if (unreadable) throw new TaskSetError([{ file, path: '', message: unreadable }]);
  const tasks: Task[] = [];
  const lines = new Map<string, number>();
  for (const read of fileLines(file, bounds.maxLineBytes)) {
    const { line } = read;
    if ('overLimitBytes' in read) {
      issues.push({
        file,
        line,
        path: '',
        message: `line of ${formatBytes(read.overLimitBytes)}, over the ${formatBytes(bounds.maxLineBytes)} limit of one task`,
      });
      continue;
    }
    const text = read.text;
    if (!text.trim()) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      issues.push({ file, line, path: '', message: `not valid JSON: ${(err as Error).message}` });
      continue;
    }
    const rawId = typeof (raw as { id?: unknown })?.id === 'string' ? (raw as { id: string }).id : undefined;
    const parsed = Task.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        issues.push({
          file,
          line,
          ...(rawId ? { taskId: rawId } : {}),
          path: zodPath(issue.path),
          message: issue.message,
        });
      continue;
    }
    const task = parsed.data;
    const first = lines.get(task.id);
    if (first !== undefined) {
      issues.push({ file, line, taskId: task.id, path: 'id', message: `duplicate task id (first on line ${first})` });
      continue;
    }
    lines.set(task.id, line);
    tasks.push(task);
  }
  if (!tasks.length && !issues.length)
    issues.push({
      file,
      path: '',
      message:
        'the task set holds no tasks (an empty set is an error: a campaign or evaluation over it would run nothing)',
    });
  const manifestFile = manifestPathFor(file);
  let manifest: TaskSetManifest | undefined;
  if (!fs.existsSync(manifestFile)) {
    issues.push({
      file: manifestFile,
      path: '',
      message: 'manifest missing (every task set needs one; `finalstate tasks generate` writes it)',
    });
  } else {
    let raw: unknown;
    try {
      raw = JSON.parse(readManifestText(manifestFile, bounds));
    } catch (err) {
      if (err instanceof TaskSetError) issues.push(...err.issues);
      else issues.push({ file: manifestFile, path: '', message: `not valid JSON: ${(err as Error).message}` });
    }
    const parsed = raw === undefined ? undefined : TaskSetManifest.safeParse(raw);
    if (parsed && !parsed.success)
      for (const issue of parsed.error.issues)
        issues.push({ file: manifestFile, path: zodPath(issue.path), message: issue.message });
    if (parsed?.success) {
      manifest = parsed.data;
      if (path.resolve(path.dirname(manifestFile), manifest.file) !== path.resolve(file)) {
        issues.push({
          file: manifestFile,
          path: 'file',
          message: `names ${manifest.file}, not ${path.basename(file)}`,
        });
      }
      const listed = new Map(manifest.tasks.map((t) => [t.id, t.sha256]));
      for (const task of tasks) {
        const sha = listed.get(task.id);
        if (!sha)
          issues.push({
            file,
            line: lines.get(task.id)!,
            taskId: task.id,
            path: 'id',
            message: 'task is not listed in the manifest',
          });
        else if (sha !== taskSha256(task))
          issues.push({
            file,
            line: lines.get(task.id)!,
            taskId: task.id,
            path: '',
            message: 'content differs from the manifest sha256 (edited without regenerating the manifest?)',
          });
      }
      for (const id of listed.keys())
        if (!lines.has(id))
          issues.push({
            file: manifestFile,
            taskId: id,
            path: 'tasks',
            message: 'listed in the manifest but absent from the task file',
          });
    }
  }
  if (issues.length || !manifest) throw new TaskSetError(issues);
  return { file, manifestFile, manifest, tasks, lines };
}

/** Write a task set of at least one task: `<dir>/<name>.jsonl` plus `<dir>/<name>.manifest.json` (ids and content hashes). */
export function writeTaskSet(
  dir: string,
  name: string,
  version: string,
  inputs: z.input<typeof Task>[],
): { file: string; manifestFile: string; tasks: Task[] } {
  const issues: TaskIssue[] = [];
  const file = path.join(dir, `${name}.jsonl`);
  const tasks: Task[] = [];
  const seen = new Set<string>();
  inputs.forEach((input, i) => {
    const parsed = Task.safeParse(input);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        issues.push({
          file,
          line: i + 1,
          taskId: String((input as { id?: unknown }).id),
          path: zodPath(issue.path),
          message: issue.message,
        });
      return;
    }
    if (seen.has(parsed.data.id))
      issues.push({ file, line: i + 1, taskId: parsed.data.id, path: 'id', message: 'duplicate task id' });
    seen.add(parsed.data.id);
    tasks.push(parsed.data);
  });
  if (!inputs.length)
    issues.push({ file, path: '', message: 'no tasks to write (an empty task set could not be read back)' });
  if (issues.length) throw new TaskSetError(issues);
  fs.mkdirSync(dir, { recursive: true });
  const manifest: TaskSetManifest = {
    name,
    version,
    file: path.basename(file),
    tasks: tasks.map((t) => ({ id: t.id, sha256: taskSha256(t) })),
  };
  const manifestFile = manifestPathFor(file);
  // Both files are written beside their targets, then renamed into place: a failed write leaves no partial set.
  const temporary = (target: string) => `${target}.tmp-${process.pid}`;
  fs.writeFileSync(temporary(file), tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
  fs.writeFileSync(temporary(manifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.renameSync(temporary(file), file);
  fs.renameSync(temporary(manifestFile), manifestFile);
  return { file, manifestFile, tasks };
}

/**
 * The task sets a task source names: one task-set file (or its manifest), or a directory whose task sets are all read,
 * sub-folders included (ids unique across them). A campaign over several domains points its split at a directory.
 */
export function readTaskSource(fileOrDir: string): LoadedTaskSet[] {
  if (fs.existsSync(fileOrDir) && fs.statSync(fileOrDir).isDirectory()) {
    const sets = readTaskSets(fileOrDir);
    if (sets.length === 0)
      throw new UserError(
        `task source ${fileOrDir}: the directory holds no task set (*.jsonl with a manifest beside it)`,
      );
    return sets;
  }
  return [readTaskSet(fileOrDir)];
}

/** Every task-set file (*.jsonl with a manifest beside it) in a directory and its sub-folders, sorted by path. */
export function findTaskSetFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => path.join(dir, f));
}

/** Load every task set in a directory and its sub-folders; all or nothing, and ids must be unique across sets. */
export function readTaskSets(dir: string): LoadedTaskSet[] {
  const sets: LoadedTaskSet[] = [];
  const issues: TaskIssue[] = [];
  const owner = new Map<string, string>();
  for (const file of findTaskSetFiles(dir)) {
    try {
      const set = readTaskSet(file);
      for (const task of set.tasks) {
        const other = owner.get(task.id);
        if (other)
          issues.push({
            file,
            line: set.lines.get(task.id)!,
            taskId: task.id,
            path: 'id',
            message: `duplicate task id (also in ${other})`,
          });
        owner.set(task.id, file);
      }
      sets.push(set);
    } catch (err) {
      if (!(err instanceof TaskSetError)) throw err;
      issues.push(...err.issues);
    }
  }
  if (issues.length) throw new TaskSetError(issues);
  return sets;
}

import fs from 'node:fs/promises';
import { UserError } from '../infra/errors.js';
import { localPathOf } from '../infra/artifacts.js';
import type { TaskSource } from '../schemas/campaign.js';
import type { TaskInfo } from '../schemas/pipeline.js';
import { Task } from '../schemas/task.js';
import { failFastOnUserError } from './failures.js';

/** Lists the tasks of a task set. The environment layer's task-set loader (manifest and hashes checked) plugs in here. */
export interface TaskCatalog {
  list(taskSet: string): Promise<Array<TaskInfo & { profile: 'full' | 'mini' }>>;
}

/** Reads a task-set JSONL file with the Task schema; any bad line fails the whole listing, naming file:line. */
export const jsonlTaskCatalog: TaskCatalog = {
  async list(taskSet) {
    const file = localPathOf(taskSet);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      throw new UserError(`task set ${file}: cannot read: ${(err as Error).message}`);
    }
    const tasks: Array<TaskInfo & { profile: 'full' | 'mini' }> = [];
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (err) {
        throw new UserError(`${file}:${i + 1}: not JSON: ${(err as Error).message}`);
      }
      const parsed = Task.safeParse(raw);
      if (!parsed.success) throw new UserError(`${file}:${i + 1}: not a task: ${parsed.error.issues.map((x) => `${x.path.join('.') || '(task)'}: ${x.message}`).join('; ')}`);
      const t = parsed.data;
      tasks.push({ taskId: t.id, domain: t.domain, split: t.split, tags: t.tags, profile: t.profile });
    });
    return tasks;
  },
};

/** The tasks of a source: its split (and profile), sorted by id, optionally the first `limit`. */
export async function listSourceTasks(catalog: TaskCatalog, source: TaskSource): Promise<TaskInfo[]> {
  const all = await catalog.list(source.taskSet);
  const chosen = all
    .filter((t) => t.split === source.split && (!source.profile || t.profile === source.profile))
    .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0))
    .slice(0, source.limit ?? Infinity)
    .map(({ taskId, domain, split, tags }) => ({ taskId, domain, split, tags: [...tags].sort() }));
  if (chosen.length === 0) throw new UserError(`task set ${source.taskSet}: no ${source.split}${source.profile ? ` ${source.profile}` : ''} tasks`);
  return chosen;
}

export function createTaskActivities({ catalog }: { catalog: TaskCatalog }) {
  return {
    async listTasks(source: TaskSource): Promise<TaskInfo[]> {
      return failFastOnUserError(() => listSourceTasks(catalog, source));
    },
  };
}

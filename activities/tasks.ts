import { readTaskSet } from '../environment/task-set.js';
import { UserError } from '../infra/errors.js';
import { localPathOf } from '../infra/artifacts.js';
import type { TaskSource } from '../schemas/campaign.js';
import type { TaskInfo } from '../schemas/pipeline.js';
import { failFastOnUserError } from './failures.js';

/** Lists the tasks of a task set. The environment layer's task-set loader (manifest and hashes checked) plugs in here. */
export interface TaskCatalog {
  list(taskSet: string): Promise<Array<TaskInfo & { profile: 'full' | 'mini' }>>;
}

/** Task sets read by the environment layer's loader: all or nothing, each task checked against the manifest hash. */
export const manifestTaskCatalog: TaskCatalog = {
  async list(taskSet) {
    return readTaskSet(localPathOf(taskSet)).tasks.map((t) => ({ taskId: t.id, domain: t.domain, split: t.split, tags: t.tags, profile: t.profile }));
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

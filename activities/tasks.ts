import { readTaskSource } from '../environment/task-set.js';
import { UserError } from '../core/errors.js';
import { localPathOf } from '../storage/artifacts.js';
import type { TaskSource } from '../schemas/campaign.js';
import type { TaskInfo } from '../schemas/pipeline.js';
import { taskEnvironment, type TaskEnvironmentKind } from '../schemas/task.js';
import { failFastOnUserError } from './failures.js';

export type ListedTask = TaskInfo & {
  profile: 'full' | 'mini';
  /** The task-set file it came from. */
  set: string;
  /** What plays it: a PostgreSQL database of its domain pack, ThinkingBox's servers, or an OpenEnv server. */
  environment: TaskEnvironmentKind;
};

/** Lists the tasks of a task source (file or directory), in file order. The environment layer's loader (manifest and hashes checked) plugs in here. */
export interface TaskLister {
  list(taskSet: string): Promise<ListedTask[]>;
}

/** Task sets read by the environment layer's loader: all or nothing, each task checked against the manifest hash. */
export const manifestTaskLister: TaskLister = {
  async list(taskSet) {
    return readTaskSource(localPathOf(taskSet)).flatMap((set) =>
      set.tasks.map((t) => ({
        taskId: t.id,
        domain: t.domain,
        split: t.split,
        tags: t.tags,
        profile: t.profile,
        set: set.file,
        environment: taskEnvironment(t),
      })),
    );
  },
};

/**
 * At most `limit` tasks of one set, every task type (first tag) in turn, each type's tasks in file order: a small
 * sample keeps the mix of the whole set. (An even stride over the file would alias with the generators' round-robin
 * of types and could keep only some of them.)
 */
function stratifiedSample<T extends { tags: string[] }>(items: T[], limit: number | undefined): T[] {
  if (limit === undefined || items.length <= limit) return items;
  const byType = new Map<string, T[]>();
  for (const item of items) byType.set(item.tags[0] ?? '', [...(byType.get(item.tags[0] ?? '') ?? []), item]);
  const queues = [...byType.values()];
  const chosen: T[] = [];
  for (let round = 0; chosen.length < limit; round++) {
    for (const queue of queues) if (round < queue.length && chosen.length < limit) chosen.push(queue[round]!);
  }
  return chosen;
}

/** The tasks of a source: its split (and profile), at most `limit` per task set (every task type kept), sorted by id. */
export async function listSourceTasks(lister: TaskLister, source: TaskSource): Promise<TaskInfo[]> {
  const listed = await lister.list(source.taskSet);
  if (source.domains) {
    const present = new Set(listed.map((t) => t.domain));
    const missing = source.domains.filter((d) => !present.has(d));
    if (missing.length > 0)
      throw new UserError(
        `task set ${source.taskSet}: no tasks of domain ${missing.join(', ')} (it has ${[...present].sort().join(', ')})`,
      );
  }
  const wanted = source.domains ? new Set(source.domains) : undefined;
  const matching = listed.filter(
    (t) =>
      t.split === source.split &&
      (!source.profile || t.profile === source.profile) &&
      (!wanted || wanted.has(t.domain)),
  );
  const sets = [...new Set(matching.map((t) => t.set))];
  const chosen = sets
    .flatMap((set) =>
      stratifiedSample(
        matching.filter((t) => t.set === set),
        source.limit,
      ),
    )
    .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0))
    .map(({ taskId, domain, split, tags }) => ({ taskId, domain, split, tags: [...tags].sort() }));
  if (chosen.length === 0)
    throw new UserError(
      `task set ${source.taskSet}: no ${source.split}${source.profile ? ` ${source.profile}` : ''} tasks${source.domains ? ` of ${source.domains.join(', ')}` : ''}`,
    );
  return chosen;
}

export function createTaskActivities({ taskLister }: { taskLister: TaskLister }) {
  return {
    async listTasks(source: TaskSource): Promise<TaskInfo[]> {
      return failFastOnUserError(() => listSourceTasks(taskLister, source));
    },
  };
}

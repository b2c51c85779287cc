import path from 'node:path';
import { readTaskSet, readTaskSource, type LoadedTaskSet } from '../../environment/task-set.js';
import { UserError } from '../../core/errors.js';
import type { Task } from '../../schemas/task.js';

/** Tasks by task source (a task-set file or a directory of them) and id, each source read (and checked against its manifests) once. */
export class TaskCatalog {
  private readonly sources = new Map<string, Map<string, Task>>();

  private source(fileOrDir: string): Map<string, Task> {
    const key = path.resolve(fileOrDir);
    let tasks = this.sources.get(key);
    if (!tasks) {
      tasks = new Map(readTaskSource(key).flatMap((set) => set.tasks.map((t) => [t.id, t] as const)));
      this.sources.set(key, tasks);
    }
    return tasks;
  }

  private readonly sets = new Map<string, LoadedTaskSet>();

  /** One task-set file, read and checked once. */
  taskSet(file: string): LoadedTaskSet {
    const key = path.resolve(file);
    let set = this.sets.get(key);
    if (!set) {
      set = readTaskSet(key);
      this.sets.set(key, set);
    }
    return set;
  }

  get(taskSet: string, taskId: string): Task {
    const task = this.source(taskSet).get(taskId);
    if (!task) throw new UserError(`task ${taskId} is not in task set ${taskSet}`);
    return task;
  }
}

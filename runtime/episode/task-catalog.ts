import path from 'node:path';
import { readTaskSet, type LoadedTaskSet } from '../../environment/task-set.js';
import { UserError } from '../../infra/errors.js';
import type { Task } from '../../schemas/task.js';

/** Tasks by task set and id, each task set read (and checked against its manifest) once. */
export class TaskCatalog {
  private readonly sets = new Map<string, LoadedTaskSet>();

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
    const task = this.taskSet(taskSet).tasks.find((t) => t.id === taskId);
    if (!task) throw new UserError(`task ${taskId} is not in task set ${taskSet}`);
    return task;
  }
}

import { listSourceTasks, manifestTaskLister } from '../activities/tasks.js';
import { fromRoot } from '../core/paths.js';
import type { TaskSource } from '../schemas/campaign.js';

/**
 * The 18 training tasks the episode benchmarks run (9 retail, 9 travel, from pools/rl-pool; never the eval split):
 * 18 groups × 8 trials is the reference's 144-episode step.
 */
export const BENCH_TRAINING_TASKS: TaskSource = {
  taskSet: fromRoot('pools', 'rl-pool'),
  split: 'train',
  profile: 'mini',
  limit: 9,
  domains: ['retail', 'travel'],
};

export async function benchTrainingTasks() {
  const tasks = await listSourceTasks(manifestTaskLister, BENCH_TRAINING_TASKS);
  if (tasks.length !== 18)
    throw new Error(`expected 18 training tasks from ${BENCH_TRAINING_TASKS.taskSet}, found ${tasks.length}`);
  return tasks;
}

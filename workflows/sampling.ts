import type { SamplerState } from '../schemas/campaign.js';
import { seededRandom, shuffled, subSeed } from '../stats/random.js';

/** The pool's order in one epoch: every task once, shuffled by a seed derived from the campaign seed and the epoch. */
export function epochOrder(pool: readonly string[], seed: number, epoch: number): string[] {
  return shuffled([...pool].sort(), seededRandom(subSeed(seed, `epoch-${epoch}`)));
}

/**
 * Draw the next `count` tasks: without replacement within an epoch; when an epoch is used up the next one starts.
 * Pure, so a workflow can call it (same pool, seed and state give the same tasks).
 */
export function drawTasks(
  pool: readonly string[],
  seed: number,
  state: SamplerState,
  count: number,
): { tasks: string[]; sampler: SamplerState } {
  let { epoch, cursor } = state;
  let order = epochOrder(pool, seed, epoch);
  const tasks: string[] = [];
  while (tasks.length < count) {
    if (cursor >= order.length) {
      epoch += 1;
      cursor = 0;
      order = epochOrder(pool, seed, epoch);
    }
    tasks.push(order[cursor]!);
    cursor += 1;
  }
  return { tasks, sampler: { epoch, cursor } };
}

import type { PoolChange } from '../schemas/campaign.js';
import type { PoolRecord, PoolSwap } from '../schemas/results.js';
import type { TaskOutcomes } from './result-set.js';
import { selectPool, stratifiedSample } from './selection.js';

export interface PoolSwapOptions {
  edges?: readonly number[];
  keep?: readonly number[];
  /** Seed of the stratified sample of entrants. */
  seed: number;
  /** Only candidates of these domains may enter (the training domains, so that out-of-domain stays out). */
  domains?: readonly string[];
}

/** Posterior mass outside the kept bins: how sure the re-probe is that a task left the middle. */
const massOutside = (r: PoolRecord, keep: readonly number[]) =>
  1 - keep.reduce((sum, bin) => sum + (r.masses[bin] ?? 0), 0);

/**
 * The pool after a re-probe, by the selection rule of `selectPool` (Jeffreys posterior, most likely bin, no cap):
 * a pool task whose re-probe falls outside the kept bins (solved, or still hopeless) is swapped for a candidate whose
 * re-probe falls inside them. The pool keeps its size: with fewer entrants than leavers, only the leavers with the
 * most posterior mass outside the kept bins go (ties by id) and the others stay (`unreplaced`), so the pool is never
 * emptied. A pool task without an outcome in the re-probe stays. Entrants are a seeded sample stratified by domain
 * and tags, as the cap of `selectPool` samples.
 */
export function swapPool(
  current: readonly string[],
  reprobe: readonly TaskOutcomes[],
  options: PoolSwapOptions,
): Omit<PoolSwap, 'step' | 'probeResultSet'> {
  const selection = selectPool(reprobe, {
    ...(options.edges ? { edges: options.edges } : {}),
    ...(options.keep ? { keep: options.keep } : {}),
    max: null,
    seed: options.seed,
  });
  const inPool = new Set(current);
  const domains = options.domains ? new Set(options.domains) : null;
  const outside = selection.records
    .filter((r) => inPool.has(r.taskId) && r.reason === 'bin-not-kept')
    .sort(
      (a, b) =>
        massOutside(b, selection.keep) - massOutside(a, selection.keep) ||
        (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0),
    );
  const candidates = selection.records.filter(
    (r) => r.kept && !inPool.has(r.taskId) && (!domains || domains.has(r.domain)),
  );
  const swaps = Math.min(outside.length, candidates.length);
  const chosen = stratifiedSample(candidates, swaps, options.seed);
  const left = outside.slice(0, swaps);
  const entered = candidates.filter((r) => chosen.has(r.taskId));
  const leaving = new Set(left.map((r) => r.taskId));
  return {
    before: [...current].sort(),
    pool: [...current.filter((id) => !leaving.has(id)), ...entered.map((r) => r.taskId)].sort(),
    left,
    entered,
    unreplaced: outside.slice(swaps),
    selection,
  };
}

/** What the campaign state keeps of a task that left or entered: its id, domain and the re-probe's posterior. */
export function poolChangeOf({ taskId, domain, k, n, bin, mean, interval }: PoolRecord): PoolChange {
  return { taskId, domain, k, n, bin, mean, interval };
}

import { UserError } from '../core/errors.js';
import type { FrozenPool, PoolRecord, SelectionReason } from '../schemas/results.js';
import { binCount, DEFAULT_EDGES, defaultKeep } from './bins.js';
import { estimateDifficulty } from './jeffreys.js';
import { seededRandom, shuffled, subSeed } from './random.js';
import type { TaskOutcomes } from './result-set.js';

export interface SelectionOptions {
  edges?: readonly number[];
  /** Bin indices to keep; default all but the first and last (the three middle bins of the default edges). */
  keep?: readonly number[];
  /** A reference model's probe: when given, keep only tasks it solved at least once. */
  reference?: readonly TaskOutcomes[];
  /** Cap on the pool size; null or absent for none. */
  max?: number | null;
  seed?: number;
}

/** Whether the solvability gate dropped the task: of a kept bin, never solved by the reference (or not probed by it). */
export function droppedByGate(record: Pick<PoolRecord, 'reason'>): boolean {
  return record.reason === 'unsolved-by-reference' || record.reason === 'absent-from-reference';
}

/** Tasks are stratified by domain and tag set, so a capped pool keeps the mix of the uncapped one. */
export function stratumOf(task: { domain: string; tags: readonly string[] }): string {
  return `${task.domain}|${[...task.tags].sort().join(',')}`;
}

/**
 * Largest-remainder allocation of `max` slots over strata in proportion to their sizes; ties on the remainder go
 * to the stratum whose seeded hash is smaller, so the result depends only on the seed and the strata.
 */
export function allocateProportionally(
  sizes: ReadonlyMap<string, number>,
  max: number,
  seed: number,
): Map<string, number> {
  const total = [...sizes.values()].reduce((s, v) => s + v, 0);
  const quotas = new Map<string, number>();
  if (total <= max) {
    for (const [key, size] of sizes) quotas.set(key, size);
    return quotas;
  }
  const remainders: Array<{ key: string; fraction: number; tie: number }> = [];
  let given = 0;
  for (const [key, size] of sizes) {
    const exact = (max * size) / total;
    quotas.set(key, Math.floor(exact));
    given += Math.floor(exact);
    remainders.push({ key, fraction: exact - Math.floor(exact), tie: subSeed(seed, key) });
  }
  remainders.sort((a, b) => b.fraction - a.fraction || a.tie - b.tie);
  for (let i = 0; i < max - given; i++) {
    const key = remainders[i]!.key;
    quotas.set(key, quotas.get(key)! + 1);
  }
  return quotas;
}

/** Seeded, stratified sample of at most `max` task ids: each stratum is shuffled with its own sub-seed. */
export function stratifiedSample(
  tasks: readonly { taskId: string; domain: string; tags: readonly string[] }[],
  max: number,
  seed: number,
): Set<string> {
  const strata = new Map<string, string[]>();
  for (const t of tasks) {
    const key = stratumOf(t);
    strata.set(key, [...(strata.get(key) ?? []), t.taskId]);
  }
  const sizes = new Map(
    [...strata].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, ids]) => [key, ids.length] as const),
  );
  const quotas = allocateProportionally(sizes, max, seed);
  const chosen = new Set<string>();
  for (const [key, ids] of strata) {
    const order = shuffled([...ids].sort(), seededRandom(subSeed(seed, key)));
    for (const id of order.slice(0, quotas.get(key))) chosen.add(id);
  }
  return chosen;
}

/** Estimate every probed task's difficulty and freeze the pool, recording why each task is kept or dropped. */
export function selectPool(probe: readonly TaskOutcomes[], options: SelectionOptions = {}): FrozenPool {
  const edges = [...(options.edges ?? DEFAULT_EDGES)];
  const keep = [...(options.keep ?? defaultKeep(edges))].sort((a, b) => a - b);
  const seed = options.seed ?? 0;
  const max = options.max ?? null;
  for (const bin of keep)
    if (!Number.isInteger(bin) || bin < 0 || bin >= binCount(edges))
      throw new UserError(`selection: kept bin ${bin} is not one of 0..${binCount(edges) - 1}`);
  if (max !== null && (!Number.isInteger(max) || max < 0))
    throw new UserError(`selection: max must be a non-negative integer, got ${max}`);
  const reference = options.reference ? new Map(options.reference.map((t) => [t.taskId, t])) : null;

  const records: PoolRecord[] = probe.map((task) => {
    const estimate = estimateDifficulty(task.c, task.n, edges);
    let reason: SelectionReason = 'kept';
    if (task.n === 0) reason = 'no-outcome';
    else if (!keep.includes(estimate.bin)) reason = 'bin-not-kept';
    else if (reference) {
      const ref = reference.get(task.taskId);
      if (!ref) reason = 'absent-from-reference';
      else if (ref.c === 0) reason = 'unsolved-by-reference';
    }
    return {
      taskId: task.taskId,
      domain: task.domain,
      tags: task.tags,
      k: task.c,
      n: task.n,
      ...estimate,
      kept: reason === 'kept',
      reason,
    };
  });

  if (max !== null) {
    const eligible = records.filter((r) => r.kept);
    const chosen = stratifiedSample(eligible, max, seed);
    for (const r of eligible) {
      if (!chosen.has(r.taskId)) {
        r.kept = false;
        r.reason = 'over-cap';
      }
    }
  }
  records.sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  return {
    edges,
    keep,
    solvabilityFilter: reference !== null,
    max,
    seed,
    records,
    pool: records.filter((r) => r.kept).map((r) => r.taskId),
  };
}

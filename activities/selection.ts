import type pg from 'pg';
import type { ArtifactStore } from '../storage/artifacts.js';
import { UserError } from '../core/errors.js';
import type { PoolChange, SelectionConfig } from '../schemas/campaign.js';
import type { FrozenPool, PoolSwap } from '../schemas/results.js';
import type { TaskOutcomes } from '../stats/result-set.js';
import { poolChangeOf, swapPool } from '../stats/pool-swap.js';
import { subSeed } from '../stats/random.js';
import { groupByTask } from '../stats/result-set.js';
import { droppedByGate, selectPool } from '../stats/selection.js';
import { failFastOnUserError } from './failures.js';
import { readResultSet } from '../storage/results.js';

export interface FreezePoolInput {
  campaignId: string;
  probeResultSet: string;
  /** The reference policy's probe: with gate, only tasks it solved at least once are kept (the solvability gate). */
  reference?: ReferenceInput;
  selection: SelectionConfig;
}

export interface ReferenceInput {
  resultSet: string;
  /** false: the reference's rows are counted and reported, the pool is not gated. */
  gate: boolean;
  /** The reference endpoint, named in errors. */
  model: string;
  baseUrl: string;
}

export interface FreezePoolResult {
  poolUri: string;
  pool: string[];
  /** The domains of the pool's tasks: what GRPO trains on. */
  domains: string[];
  probed: number;
  /** With a reference probe: the candidates of the kept bins the gate dropped (would drop, ungated) and it solved. */
  reference?: { dropped: number; solved: number };
}

export interface ReprobePoolInput {
  campaignId: string;
  step: number;
  probeResultSet: string;
  pool: string[];
  selection: SelectionConfig;
  /** Only candidates of these domains may enter. */
  trainingDomains?: string[];
}

export interface ReprobePoolResult {
  uri: string;
  pool: string[];
  left: PoolChange[];
  entered: PoolChange[];
  unreplaced: number;
}

function countBy(values: readonly string[]): Record<string, number> {
  return values.reduce<Record<string, number>>((acc, v) => ({ ...acc, [v]: (acc[v] ?? 0) + 1 }), {});
}

/** The pool, its tasks' domains (what GRPO trains on) and how many candidates were probed. */
function poolOf(frozen: FrozenPool, probed: readonly TaskOutcomes[]): Omit<FreezePoolResult, 'poolUri' | 'reference'> {
  const domainOf = new Map(probed.map((t) => [t.taskId, t.domain]));
  const domains = [...new Set(frozen.pool.map((id) => domainOf.get(id)!))].sort();
  return { pool: frozen.pool, domains, probed: frozen.records.length };
}

/** Select: the probe's rows -> Jeffreys difficulty per task -> the frozen pool, written to the artifact store. */
export function createSelectionActivities({ pool, artifacts }: { pool: pg.Pool; artifacts: ArtifactStore }) {
  const putPool = (campaignId: string, frozen: FrozenPool) =>
    artifacts.put(`${campaignId}/pool.json`, `${JSON.stringify(frozen, null, 2)}\n`);
  return {
    async freezePool(input: FreezePoolInput): Promise<FreezePoolResult> {
      return failFastOnUserError(async () => {
        const rows = await readResultSet(pool, input.probeResultSet);
        if (rows.length === 0) throw new UserError(`select: probe result set ${input.probeResultSet} has no rows`);
        const probed = groupByTask(rows, input.probeResultSet);
        const ungated = selectPool(probed, input.selection);
        if (ungated.pool.length === 0) {
          const reasons = countBy(ungated.records.map((r) => r.reason));
          throw new UserError(
            `select: no probed task falls in the kept bins ${ungated.keep.join(',')} (reasons: ${JSON.stringify(reasons)}); widen selection.keep or probe more tasks`,
          );
        }
        if (!input.reference) {
          const poolUri = await putPool(input.campaignId, ungated);
          return { poolUri, ...poolOf(ungated, probed) };
        }
        const ref = input.reference;
        const referenceTasks = groupByTask(await readResultSet(pool, ref.resultSet), ref.resultSet);
        const gated = selectPool(probed, { ...input.selection, reference: referenceTasks });
        const candidates = new Set(probed.map((t) => t.taskId));
        const counts = {
          dropped: gated.records.filter((r) => droppedByGate(r)).length,
          solved: referenceTasks.filter((t) => t.c > 0 && candidates.has(t.taskId)).length,
        };
        if (ref.gate && gated.pool.length === 0) {
          const reasons = countBy(gated.records.filter((r) => droppedByGate(r)).map((r) => r.reason));
          throw new UserError(
            `select: the solvability gate dropped every candidate: the reference ${ref.model} at ${ref.baseUrl} solved ${counts.solved} of ${candidates.size} probed candidates (${ref.resultSet}), and all ${counts.dropped} candidates of the kept bins ${gated.keep.join(',')} are ones it never solved (${JSON.stringify(reasons)}); use a stronger reference, raise referenceProbe.n, or set referenceProbe.gate to false to record the reference probe without gating`,
          );
        }
        const frozen = ref.gate ? gated : ungated;
        const poolUri = await putPool(input.campaignId, frozen);
        return { poolUri, ...poolOf(frozen, probed), reference: counts };
      });
    },
    /** After a re-probe: swap the pool's tasks that left the kept bins (stats/pool-swap.ts), written beside the pool. */
    async reprobePool(input: ReprobePoolInput): Promise<ReprobePoolResult> {
      return failFastOnUserError(async () => {
        const rows = await readResultSet(pool, input.probeResultSet);
        const swapped = swapPool(input.pool, groupByTask(rows, input.probeResultSet), {
          edges: input.selection.edges,
          ...(input.selection.keep ? { keep: input.selection.keep } : {}),
          seed: subSeed(input.selection.seed, `reprobe-step-${input.step}`),
          ...(input.trainingDomains ? { domains: input.trainingDomains } : {}),
        });
        const file: PoolSwap = { step: input.step, probeResultSet: input.probeResultSet, ...swapped };
        const uri = await artifacts.put(
          `${input.campaignId}/pool-step-${input.step}.json`,
          `${JSON.stringify(file, null, 2)}\n`,
        );
        return {
          uri,
          pool: swapped.pool,
          left: swapped.left.map(poolChangeOf),
          entered: swapped.entered.map(poolChangeOf),
          unreplaced: swapped.unreplaced.length,
        };
      });
    },
  };
}

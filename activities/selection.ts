import type pg from 'pg';
import type { ArtifactStore } from '../storage/artifacts.js';
import { UserError } from '../core/errors.js';
import type { PoolChange, SelectionConfig } from '../schemas/campaign.js';
import type { PoolSwap } from '../schemas/results.js';
import { poolChangeOf, swapPool } from '../stats/pool-swap.js';
import { subSeed } from '../stats/random.js';
import { groupByTask } from '../stats/result-set.js';
import { selectPool } from '../stats/selection.js';
import { failFastOnUserError } from './failures.js';
import { readResultSet } from '../storage/results.js';

export interface FreezePoolInput {
  campaignId: string;
  probeResultSet: string;
  /** The reference policy's probe: only tasks it solved at least once are kept (the solvability gate). */
  referenceResultSet?: string;
  selection: SelectionConfig;
}

export interface FreezePoolResult {
  poolUri: string;
  pool: string[];
  /** The domains of the pool's tasks: what GRPO trains on. */
  domains: string[];
  probed: number;
  /** Candidates of the kept bins that the solvability gate dropped. */
  droppedByReference: number;
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

/** Select: the probe's rows -> Jeffreys difficulty per task -> the frozen pool, written to the artifact store. */
export function createSelectionActivities({ pool, artifacts }: { pool: pg.Pool; artifacts: ArtifactStore }) {
  return {
    async freezePool(input: FreezePoolInput): Promise<FreezePoolResult> {
      return failFastOnUserError(async () => {
        const rows = await readResultSet(pool, input.probeResultSet);
        if (rows.length === 0) throw new UserError(`select: probe result set ${input.probeResultSet} has no rows`);
        const probed = groupByTask(rows, input.probeResultSet);
        const reference = input.referenceResultSet
          ? groupByTask(await readResultSet(pool, input.referenceResultSet), input.referenceResultSet)
          : undefined;
        const frozen = selectPool(probed, { ...input.selection, ...(reference ? { reference } : {}) });
        if (frozen.pool.length === 0) {
          const reasons = frozen.records.reduce<Record<string, number>>(
            (acc, r) => ({ ...acc, [r.reason]: (acc[r.reason] ?? 0) + 1 }),
            {},
          );
          throw new UserError(
            `select: no probed task falls in the kept bins ${frozen.keep.join(',')} (reasons: ${JSON.stringify(reasons)}); widen selection.keep or probe more tasks`,
          );
        }
        const poolUri = await artifacts.put(`${input.campaignId}/pool.json`, `${JSON.stringify(frozen, null, 2)}\n`);
        const domainOf = new Map(probed.map((t) => [t.taskId, t.domain]));
        const domains = [...new Set(frozen.pool.map((id) => domainOf.get(id)!))].sort();
        const droppedByReference = frozen.records.filter(
          (r) => r.reason === 'unsolved-by-reference' || r.reason === 'absent-from-reference',
        ).length;
        return { poolUri, pool: frozen.pool, domains, probed: frozen.records.length, droppedByReference };
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

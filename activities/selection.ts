import type pg from 'pg';
import type { ArtifactStore } from '../storage/artifacts.js';
import { UserError } from '../core/errors.js';
import type { SelectionConfig } from '../schemas/campaign.js';
import { groupByTask } from '../stats/result-set.js';
import { selectPool } from '../stats/selection.js';
import { failFastOnUserError } from './failures.js';
import { readResultSet } from '../storage/results.js';

export interface FreezePoolInput {
  campaignId: string;
  probeResultSet: string;
  selection: SelectionConfig;
}

export interface FreezePoolResult {
  poolUri: string;
  pool: string[];
  /** The domains of the pool's tasks: what GRPO trains on. */
  domains: string[];
  probed: number;
}

/** Select: the probe's rows -> Jeffreys difficulty per task -> the frozen pool, written to the artifact store. */
export function createSelectionActivities({ pool, artifacts }: { pool: pg.Pool; artifacts: ArtifactStore }) {
  return {
    async freezePool(input: FreezePoolInput): Promise<FreezePoolResult> {
      return failFastOnUserError(async () => {
        const rows = await readResultSet(pool, input.probeResultSet);
        if (rows.length === 0) throw new UserError(`select: probe result set ${input.probeResultSet} has no rows`);
        const probed = groupByTask(rows, input.probeResultSet);
        const frozen = selectPool(probed, input.selection);
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
        return { poolUri, pool: frozen.pool, domains, probed: frozen.records.length };
      });
    },
  };
}

import type pg from 'pg';
import { storeResultRows, type StoreRowsInput } from '../storage/results.js';

/** Result rows into the control database (campaign_result_rows), in the batches the workflows send. */
export function createResultActivities({ pool }: { pool: pg.Pool }) {
  return {
    async storeResultRows(input: StoreRowsInput): Promise<{ stored: number }> {
      return { stored: await storeResultRows(pool, input) };
    },
  };
}

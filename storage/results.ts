import type pg from 'pg';
import { ResultRow, roles, type ResultSetSpend, type RoleUsage } from '../schemas/results.js';
import { readableJson } from './readable-json.js';

/** One row to store: the episode that produced it and its result row (an EpisodeOutcome is accepted and trimmed). */
export interface StoredRow {
  episodeId: string;
  row: ResultRow;
}

export interface StoreRowsInput {
  resultSet: string;
  rows: StoredRow[];
}

/** Result rows live in the control database's campaign_result_rows table (storage/migrations/0001_*). */
export async function storeResultRows(pool: pg.Pool, { resultSet, rows }: StoreRowsInput): Promise<number> {
  if (rows.length === 0) return 0;
  const values: unknown[] = [];
  const tuples = rows.map(({ episodeId, row }, i) => {
    const clean = ResultRow.parse(pickResultRow(row));
    values.push(
      resultSet,
      episodeId,
      clean.campaignId ?? null,
      clean.taskId,
      clean.trial,
      clean.step ?? null,
      clean.reward,
      clean.error,
      readableJson(clean),
    );
    const o = i * 9;
    return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}, $${o + 7}, $${o + 8}, $${o + 9})`;
  });
  // A retried activity stores the same rows again: the later write wins, row for row.
  const res = await pool.query(
    `INSERT INTO campaign_result_rows (result_set, episode_id, campaign_id, task_id, trial, step, reward, error, row)
     VALUES ${tuples.join(', ')}
     ON CONFLICT (result_set, episode_id) DO UPDATE SET reward = EXCLUDED.reward, error = EXCLUDED.error, row = EXCLUDED.row, stored_at = now()`,
    values,
  );
  return res.rowCount ?? rows.length;
}

export async function readResultSet(pool: pg.Pool, resultSet: string): Promise<ResultRow[]> {
  const res = await pool.query<{ row: ResultRow }>(
    'SELECT row FROM campaign_result_rows WHERE result_set = $1 ORDER BY task_id, trial',
    [resultSet],
  );
  return res.rows.map((r) => ResultRow.parse(r.row));
}

const RESULT_ROW_KEYS = Object.keys(ResultRow.shape) as Array<keyof ResultRow>;

/** The ResultRow fields of an EpisodeOutcome (which adds episode id, finish reason, trajectory). */
export function pickResultRow(value: ResultRow): ResultRow {
  const out: Record<string, unknown> = {};
  for (const key of RESULT_ROW_KEYS) if (value[key] !== undefined) out[key] = value[key];
  return out as ResultRow;
}

/**
 * What each of a campaign's result sets spent: its rows (errored ones included: they were paid for), the sum of their
 * costUsd and of their tokens per role.
 */
export async function campaignSpend(pool: pg.Pool, campaignId: string): Promise<ResultSetSpend[]> {
  const tokens = roles.flatMap((role) =>
    (['inputTokens', 'cachedInputTokens', 'outputTokens'] as const).map(
      (key) => `coalesce(sum((row->'usage'->'${role}'->>'${key}')::bigint), 0)::float8 AS "${role}.${key}"`,
    ),
  );
  const res = await pool.query<Record<string, number> & { result_set: string; episodes: number; cost_usd: number }>(
    `SELECT result_set, count(*)::int AS episodes, coalesce(sum((row->>'costUsd')::float8), 0) AS cost_usd, ${tokens.join(', ')}
     FROM campaign_result_rows WHERE campaign_id = $1 AND starts_with(result_set, $2)
     GROUP BY result_set ORDER BY result_set`,
    [campaignId, `${campaignId}/`],
  );
  return res.rows.map((r) => {
    const usage = Object.fromEntries(
      roles.map((role) => [
        role,
        {
          inputTokens: r[`${role}.inputTokens`]!,
          cachedInputTokens: r[`${role}.cachedInputTokens`]!,
          outputTokens: r[`${role}.outputTokens`]!,
        },
      ]),
    ) as RoleUsage;
    return { resultSet: r.result_set, episodes: r.episodes, costUsd: r.cost_usd, usage };
  });
}

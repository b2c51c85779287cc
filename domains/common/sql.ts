import type pg from 'pg';
import { ToolRejection } from '../../environment/domain.js';

export type JsonRow = Record<string, unknown>;

/**
 * Run a SELECT and return its rows as JSON values (numeric -> number, timestamptz -> ISO text), the shape tools
 * hand back to the agent. `sql` is wrapped, so it may be any parameterised SELECT.
 */
export async function selectJson(db: pg.ClientBase, sql: string, params: unknown[] = []): Promise<JsonRow[]> {
  const result = await db.query<{ row: JsonRow }>(`SELECT to_jsonb(q) AS row FROM (${sql}) q`, params);
  return result.rows.map((r) => r.row);
}

/** The single row of a SELECT, or a ToolRejection with `notFound` when there is none. */
export async function selectOne(db: pg.ClientBase, sql: string, params: unknown[], notFound: string): Promise<JsonRow> {
  const rows = await selectJson(db, sql, params);
  if (!rows[0]) throw new ToolRejection(notFound);
  return rows[0];
}

/** Run a write; a row count other than `expected` means the target was not found. */
export async function writeRows(
  db: pg.ClientBase,
  sql: string,
  params: unknown[],
  notFound: string,
  expected = 1,
): Promise<void> {
  const result = await db.query(sql, params);
  if ((result.rowCount ?? 0) < expected) throw new ToolRejection(notFound);
}

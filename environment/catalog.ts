import type pg from 'pg';
import { INTERNAL_PREFIX } from './naming.js';

export interface TableCatalog {
  /** Column name -> PostgreSQL type name (information_schema data_type / udt_name). */
  columns: Record<string, string>;
  primaryKey: string[];
}

/** Domain tables of a database (internal tables excluded), read from the system catalogs. */
export type DatabaseCatalog = Record<string, TableCatalog>;

export async function readCatalog(client: pg.ClientBase): Promise<DatabaseCatalog> {
  const columns = await client.query<{ table_name: string; column_name: string; udt_name: string }>(
    `SELECT table_name, column_name, udt_name FROM information_schema.columns
     WHERE table_schema = 'public' AND left(table_name, length($1)) <> $1 ORDER BY table_name, ordinal_position`,
    [INTERNAL_PREFIX],
  );
  const keys = await client.query<{ table_name: string; column_name: string }>(
    `SELECT c.relname AS table_name, a.attname AS column_name
     FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
     WHERE i.indisprimary AND n.nspname = 'public' ORDER BY c.relname, k.ord`,
  );
  const catalog: DatabaseCatalog = {};
  for (const row of columns.rows) {
    const table = (catalog[row.table_name] ??= { columns: {}, primaryKey: [] });
    table.columns[row.column_name] = row.udt_name;
  }
  for (const row of keys.rows) catalog[row.table_name]?.primaryKey.push(row.column_name);
  return catalog;
}

export function isJsonColumn(type: string | undefined): boolean {
  return type === 'json' || type === 'jsonb';
}

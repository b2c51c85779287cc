import pg from 'pg';
import { isJsonColumn, type TableCatalog } from './catalog.js';

export const ident = (name: string): string => pg.escapeIdentifier(name);
export const literal = (text: string): string => pg.escapeLiteral(text);

/** A JSON value bound as a query parameter: json columns get JSON text (pg would turn a JS array into a SQL array). */
export function bindValue(value: unknown, columnType: string | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (isJsonColumn(columnType)) return JSON.stringify(value);
  if (typeof value === 'object' && !(value instanceof Date)) return JSON.stringify(value);
  return value;
}

/** Insert one row, all values parameterised. */
export async function insertRow(
  client: pg.ClientBase,
  table: string,
  catalog: TableCatalog,
  row: Record<string, unknown>,
): Promise<void> {
  const cols = Object.keys(row);
  const params = cols.map((c) => bindValue(row[c], catalog.columns[c]));
  await client.query(
    `INSERT INTO ${ident(table)} (${cols.map(ident).join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`,
    params,
  );
}

/** Upsert by primary key: update the given columns of an existing row, else insert the row. */
export async function upsertRow(
  client: pg.ClientBase,
  table: string,
  catalog: TableCatalog,
  row: Record<string, unknown>,
): Promise<void> {
  const keyCols = catalog.primaryKey;
  const setCols = Object.keys(row).filter((c) => !keyCols.includes(c));
  const keyParams = keyCols.map((c) => bindValue(row[c], catalog.columns[c]));
  if (setCols.length > 0) {
    const setParams = setCols.map((c) => bindValue(row[c], catalog.columns[c]));
    const updated = await client.query(
      `UPDATE ${ident(table)} SET ${setCols.map((c, i) => `${ident(c)} = $${i + 1}`).join(', ')}
       WHERE ${keyCols.map((c, i) => `${ident(c)} = $${setCols.length + i + 1}`).join(' AND ')}`,
      [...setParams, ...keyParams],
    );
    if (updated.rowCount) return;
  } else {
    const found = await client.query(
      `SELECT 1 FROM ${ident(table)} WHERE ${keyCols.map((c, i) => `${ident(c)} = $${i + 1}`).join(' AND ')}`,
      keyParams,
    );
    if (found.rowCount) return;
  }
  await insertRow(client, table, catalog, row);
}

export async function deleteRow(
  client: pg.ClientBase,
  table: string,
  catalog: TableCatalog,
  key: Record<string, unknown>,
): Promise<number> {
  const keyCols = catalog.primaryKey;
  const res = await client.query(
    `DELETE FROM ${ident(table)} WHERE ${keyCols.map((c, i) => `${ident(c)} = $${i + 1}`).join(' AND ')}`,
    keyCols.map((c) => bindValue(key[c], catalog.columns[c])),
  );
  return res.rowCount ?? 0;
}

import type pg from 'pg';
import { TableGrading } from '../schemas/domain.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import { canonicalRow } from './canonicalize.js';
import type { DatabaseCatalog } from './catalog.js';
import type { DomainDefinition } from './domain.js';
import { ident } from './sql.js';

/** table -> (canonical JSON of the primary-key values -> canonical row). Rows are keyed, never listed by position. */
export type StateSnapshot = Record<string, Record<string, Record<string, unknown>>>;

/** Trailing zeros of a numeric's text say nothing about its value: 10.50 and 10.5 are one value. */
export function normaliseNumericText(text: string): string {
  return /^-?\d+\.\d+$/.test(text) ? text.replace(/\.?0+$/, '') : text;
}

/**
 * Values as JSON the same way on every machine: booleans and small integers as JSON, int8 and numeric as exact
 * text, timestamptz as ISO-8601 UTC, json as parsed JSON, everything else as PostgreSQL's text output.
 */
const snapshotTypes = {
  getTypeParser(oid: number): (text: string) => unknown {
    switch (oid) {
      case 16:
        return (t) => t === 't';
      case 21:
      case 23:
      case 700:
      case 701:
        return Number;
      case 1700:
        return normaliseNumericText;
      case 114:
      case 3802:
        return (t) => JSON.parse(t);
      case 1184:
        return (t) => new Date(t).toISOString();
      default:
        return (t) => t;
    }
  },
};

export function rowKey(row: Record<string, unknown>, primaryKey: string[]): string {
  return canonicalJson(primaryKey.map((c) => row[c]));
}

/** The rows of several tables in one round trip (one simple-protocol query of one SELECT per table). */
export async function readTablesRows(client: pg.ClientBase, tables: string[]): Promise<Record<string, unknown>[][]> {
  if (tables.length === 0) return [];
  const text = tables.map((t) => `SELECT * FROM ${ident(t)}`).join('; ');
  const res = (await client.query({ text, types: snapshotTypes } as pg.QueryConfig)) as unknown as
    pg.QueryResult | pg.QueryResult[];
  return (Array.isArray(res) ? res : [res]).map((r) => r.rows as Record<string, unknown>[]);
}

/** A domain's grading policies, parsed once per pack (every snapshot needs them). */
const parsedGrading = new WeakMap<DomainDefinition, Map<string, TableGrading>>();
function gradingPolicy(domain: DomainDefinition, table: string): TableGrading {
  let policies = parsedGrading.get(domain);
  if (!policies) parsedGrading.set(domain, (policies = new Map()));
  let policy = policies.get(table);
  if (!policy) policies.set(table, (policy = TableGrading.parse(domain.grading[table])));
  return policy;
}

/**
 * Run one query of a task file. The extended protocol (Parse/Bind/Execute) takes exactly one statement, so text such
 * as `COMMIT; UPDATE …` fails as a whole instead of ending the caller's read-only transaction.
 */
export async function runReadQuery(client: pg.ClientBase, sql: string): Promise<Record<string, unknown>[]> {
  const res = await client.query({ text: sql, types: snapshotTypes, queryMode: 'extended' } as pg.QueryConfig);
  return res.rows as Record<string, unknown>[];
}

/** Snapshot every domain table (internal tables excluded), normalised by the domain's grading policy. */
export async function takeSnapshot(
  client: pg.ClientBase,
  domain: DomainDefinition,
  catalog: DatabaseCatalog,
): Promise<StateSnapshot> {
  const snapshot: StateSnapshot = {};
  const tables = Object.keys(catalog).sort();
  const read = await readTablesRows(client, tables);
  for (const [i, table] of tables.entries()) {
    const policy = gradingPolicy(domain, table);
    const rows: Record<string, Record<string, unknown>> = {};
    for (const row of read[i]!) rows[rowKey(row, policy.primaryKey)] = canonicalRow(row, policy);
    snapshot[table] = rows;
  }
  return snapshot;
}

export function snapshotHash(snapshot: StateSnapshot): string {
  return sha256Hex(canonicalJson(snapshot));
}

/**
 * A minimal stand-in for the environment layer's backend, for testing domain packs on the real PostgreSQL:
 * a scratch database built from a pack's schema, seed and sequences; task init applied by primary key; tool calls
 * run through the real handlers; and a small snapshot diff. It is a test harness, not the production backend.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { z } from 'zod';
import type { DomainDefinition, ToolContext } from '../../environment/domain.js';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { withClient } from '../../infra/stack/postgres.js';
import { connectionConfig } from '../../environment/connection.js';
import type { TaskInput, ToolCall } from '../../schemas/task.js';

const ident = (name: string) => pg.escapeIdentifier(name);

export interface ScratchDb {
  name: string;
  client: pg.Client;
  drop(): Promise<void>;
}

async function insertRows(
  client: pg.ClientBase,
  table: string,
  rows: Record<string, unknown>[],
  conflictKey?: string[],
): Promise<void> {
  for (const row of rows) {
    const columns = Object.keys(row);
    const values = columns.map((c) => row[c]);
    const placeholders = columns.map((_, i) => `$${i + 1}`).join(', ');
    let sql = `INSERT INTO ${ident(table)} (${columns.map(ident).join(', ')}) VALUES (${placeholders})`;
    if (conflictKey) {
      const updates = columns.filter((c) => !conflictKey.includes(c)).map((c) => `${ident(c)} = EXCLUDED.${ident(c)}`);
      sql +=
        ` ON CONFLICT (${conflictKey.map(ident).join(', ')}) ` +
        (updates.length ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING');
    }
    await client.query(sql, values);
  }
}

/** A fresh database holding the pack's schema, seed rows and a table of id sequences. */
export async function createScratchDb(
  domain: DomainDefinition,
  config: LoadedConfig = loadConfig(),
): Promise<ScratchDb> {
  const name = `fs_domaintest_${domain.name}_${process.pid}_${Date.now()}`;
  await withClient(config, undefined, (c) => c.query(`CREATE DATABASE ${ident(name)}`));
  const client = new pg.Client(connectionConfig(config, name));
  await client.connect();
  await client.query('SET TimeZone = UTC');
  await client.query(domain.schemaSql);
  await client.query(
    'CREATE TABLE harness_sequences (name text PRIMARY KEY, prefix text NOT NULL, next bigint NOT NULL)',
  );
  for (const [seq, { prefix, start }] of Object.entries(domain.sequences)) {
    await client.query('INSERT INTO harness_sequences VALUES ($1, $2, $3)', [seq, prefix, start]);
  }
  await client.query('BEGIN');
  for (const [table, rows] of Object.entries(domain.seed)) await insertRows(client, table, rows);
  await client.query('COMMIT');
  return {
    name,
    client,
    async drop() {
      await client.end().catch(() => undefined);
      await withClient(config, undefined, (c) => c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
    },
  };
}

/** Upsert (by the grading primary key) and delete the task's init rows, parents first. */
export async function applyInit(client: pg.ClientBase, domain: DomainDefinition, task: TaskInput): Promise<void> {
  const init = task.init ?? {};
  for (const [table, rows] of Object.entries(init.delete ?? {})) {
    const key = domain.grading[table]!.primaryKey;
    for (const row of rows)
      await client.query(
        `DELETE FROM ${ident(table)} WHERE ${key.map((c, i) => `${ident(c)} = $${i + 1}`).join(' AND ')}`,
        key.map((c) => row[c]),
      );
  }
  for (const [table, rows] of Object.entries(init.upsert ?? {})) {
    const grading = domain.grading[table];
    if (!grading) throw new Error(`task ${task.id}: init.upsert names unknown table ${table}`);
    await insertRows(client, table, rows, grading.primaryKey);
  }
}

/** ToolContext over the transaction: the clock fixed at the task's `now`, ids from harness_sequences (rolled back with it). */
export function toolContext(client: pg.ClientBase, now: string): ToolContext {
  return {
    db: client,
    now: new Date(now),
    async nextId(sequence) {
      const res = await client.query<{ prefix: string; n: string }>(
        'UPDATE harness_sequences SET next = next + 1 WHERE name = $1 RETURNING prefix, next - 1 AS n',
        [sequence],
      );
      if (!res.rows[0]) throw new Error(`no sequence ${sequence}`);
      return `${res.rows[0].prefix}${res.rows[0].n}`;
    },
  };
}

/** Run one call through its handler, validating the arguments like the MCP layer (strictly, to catch typos). */
export async function runCall(domain: DomainDefinition, ctx: ToolContext, call: ToolCall): Promise<unknown> {
  const tool = domain.tools.find((t) => t.name === call.tool);
  if (!tool) throw new Error(`unknown tool ${call.tool}`);
  const args = z.object(tool.input).strict().parse(call.arguments);
  return tool.handler(ctx, args);
}

export type Snapshot = Map<string, Map<string, string>>;

/** Every table of the pack, rows keyed by the grading primary key, without the columns grading ignores. */
export async function snapshot(client: pg.ClientBase, domain: DomainDefinition): Promise<Snapshot> {
  const snap: Snapshot = new Map();
  for (const [table, grading] of Object.entries(domain.grading)) {
    const ignored = grading.ignoreColumns ?? [];
    const res = await client.query<{ row: Record<string, unknown> }>(
      `SELECT to_jsonb(t) - $1::text[] AS row FROM ${ident(table)} t`,
      [ignored],
    );
    snap.set(
      table,
      new Map(res.rows.map((r) => [JSON.stringify(grading.primaryKey.map((c) => r.row[c])), JSON.stringify(r.row)])),
    );
  }
  return snap;
}

export interface DiffRow {
  table: string;
  key: string;
  kind: 'missing_row' | 'unexpected_row' | 'changed_value';
  column?: string;
}

/** Rows of `actual` that differ from `expected`, keyed by primary key (never by position). No canonicalisation. */
export function diffSnapshots(expected: Snapshot, actual: Snapshot): DiffRow[] {
  const diff: DiffRow[] = [];
  for (const [table, rows] of expected) {
    const other = actual.get(table) ?? new Map<string, string>();
    for (const [key, json] of rows) {
      const got = other.get(key);
      if (got === undefined) diff.push({ table, key, kind: 'missing_row' });
      else if (got !== json) {
        const a = JSON.parse(json) as Record<string, unknown>;
        const b = JSON.parse(got) as Record<string, unknown>;
        for (const column of Object.keys(a))
          if (JSON.stringify(a[column]) !== JSON.stringify(b[column]))
            diff.push({ table, key, kind: 'changed_value', column });
      }
    }
    for (const key of other.keys()) if (!rows.has(key)) diff.push({ table, key, kind: 'unexpected_row' });
  }
  return diff;
}

/** Rows of each assertion query, compared order-insensitively. */
export async function checkAssertions(client: pg.ClientBase, task: TaskInput): Promise<string[]> {
  const failures: string[] = [];
  for (const assertion of task.assertions ?? []) {
    const res = await client.query(assertion.sql);
    const norm = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
    const got = norm(res.rows);
    const want = norm(assertion.expect);
    if (JSON.stringify(got) !== JSON.stringify(want))
      failures.push(`${assertion.description}: expected ${want.join(' ')} got ${got.join(' ')}`);
  }
  return failures;
}

/**
 * The final state (and assertion failures) after running `calls` on the task's init, in a transaction rolled back
 * after. By default a failing call throws; with `tolerate`, a rejected call is undone (like an agent's failed call)
 * and counted.
 */
export async function finalState(
  client: pg.ClientBase,
  domain: DomainDefinition,
  task: TaskInput,
  calls: ToolCall[],
  options: { tolerate?: boolean } = {},
): Promise<{ snap: Snapshot; failures: string[]; rejected: number }> {
  await client.query('BEGIN');
  try {
    await applyInit(client, domain, task);
    const ctx = toolContext(client, task.now);
    let rejected = 0;
    for (const call of calls) {
      if (!options.tolerate) {
        await runCall(domain, ctx, call);
        continue;
      }
      await client.query('SAVEPOINT call');
      try {
        await runCall(domain, ctx, call);
        await client.query('RELEASE SAVEPOINT call');
      } catch {
        rejected++;
        await client.query('ROLLBACK TO SAVEPOINT call');
      }
    }
    return { snap: await snapshot(client, domain), failures: await checkAssertions(client, task), rejected };
  } finally {
    await client.query('ROLLBACK');
  }
}

/** Every import specifier of a TypeScript source file (static imports and re-exports). */
const importsOf = (source: string) =>
  [...source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);

function typeScriptFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? typeScriptFiles(path.join(dir, e.name))
        : e.name.endsWith('.ts')
          ? [path.join(dir, e.name)]
          : [],
    );
}

/** Where a pack under `root` imports anything but `finalstate/domain` and its own files: one line per import. */
export function foreignImports(root: string): { files: number; foreign: string[] } {
  const files = typeScriptFiles(root);
  const foreign: string[] = [];
  for (const file of files) {
    for (const specifier of importsOf(fs.readFileSync(file, 'utf8'))) {
      if (specifier === 'finalstate/domain') continue;
      if (!specifier.startsWith('.') || !path.resolve(path.dirname(file), specifier).startsWith(root + path.sep))
        foreign.push(`${path.relative(root, file)} imports ${specifier}`);
    }
  }
  return { files: files.length, foreign };
}

/** A pack written against the public API imports `finalstate/domain` and its own files, nothing else. */
export function assertPublicApiOnly(root: string, minFiles = 10): void {
  const { files, foreign } = foreignImports(root);
  assert.ok(files >= minFiles, `${files} files`);
  assert.deepEqual(foreign, []);
}

/** A scratch database of `domain` for the tests of one suite: created before them, dropped after. */
export function scratchDbHook(domain: DomainDefinition): () => ScratchDb {
  let db: ScratchDb | undefined;
  before(async () => {
    db = await createScratchDb(domain);
  });
  after(async () => {
    await db?.drop();
  });
  return () => db!;
}

import pg from 'pg';
import type { LoadedConfig } from '../schemas/config.js';
import { connectionConfig } from './connection.js';
import { resetToPristine } from './pristine-state.js';
import { spareDatabaseName, spareMarkerSql } from './spare-databases.js';
import { ident } from './sql.js';

type AdminQuery = (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Terminate every session of a database (but ours) and wait until they are gone, so it can be renamed at once. */
export async function endSessions(adminQuery: AdminQuery, database: string): Promise<void> {
  for (let i = 0; ; i++) {
    const res = await adminQuery(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    if (!res.rowCount) return;
    if (i >= 500) throw new Error(`database ${database}: its sessions did not end`);
    await sleep(i < 10 ? 2 : 10);
  }
}

/**
 * Turn a torn-down episode database into a spare of its template, instead of dropping it and copying the template
 * again: the reset rewrites its few small tables, where a copy writes and syncs a whole database. In order:
 * 1. closed: connections disallowed, the episode role's privileges on it revoked, and every session ended (one the
 *    role opened itself, with its own credentials, would survive the rest);
 * 2. renamed to a spare's name, so the episode's name is free at once, as after a drop;
 * 3. reset as the admin (`resetToPristine`: rows, sequences, large objects, prepared transactions, what the role owns
 *    or was granted there, statistics), and the role dropped;
 * 4. closed to connections again, and marked for the janitor like a new spare.
 * Returns the spare's name. On failure it drops the spare and throws; the caller drops what is left.
 */
export async function recycleEpisodeDatabase(
  config: LoadedConfig,
  adminQuery: AdminQuery,
  episode: { database: string; role: string },
  template: string,
): Promise<string> {
  const { database, role } = episode;
  const roleExists = Boolean((await adminQuery('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount);
  await adminQuery(
    `ALTER DATABASE ${ident(database)} ALLOW_CONNECTIONS false${roleExists ? `; REVOKE ALL ON DATABASE ${ident(database)} FROM ${ident(role)}` : ''}`,
  );
  await endSessions(adminQuery, database);
  const spare = spareDatabaseName();
  await adminQuery(`ALTER DATABASE ${ident(database)} RENAME TO ${ident(spare)}`);
  try {
    // only the admin can connect now: PUBLIC's CONNECT is revoked, and no other episode role ever had it here
    await adminQuery(`ALTER DATABASE ${ident(spare)} ALLOW_CONNECTIONS true`);
    const client = new pg.Client(connectionConfig(config, spare));
    client.on('error', () => undefined);
    await client.connect();
    try {
      await resetToPristine(client, role);
    } finally {
      await client.end();
    }
    await adminQuery(`DROP ROLE IF EXISTS ${ident(role)}`);
    await adminQuery(`ALTER DATABASE ${ident(spare)} ALLOW_CONNECTIONS false; ${spareMarkerSql(spare, template)}`);
    await endSessions(adminQuery, spare);
    return spare;
  } catch (err) {
    await adminQuery(`DROP DATABASE IF EXISTS ${ident(spare)} WITH (FORCE)`).catch(() => undefined);
    throw err;
  }
}

import pg from 'pg';
import type { LoadedConfig } from '../schemas/config.js';
import { connectionConfig } from './connection.js';
import type { Episode } from './episode.js';
import { asInfrastructureError, isInfrastructureFault, surviveServerLoss } from './pg-faults.js';

/** The pool of one episode's database, logged in as its role, every session started under the runtime's options. */
export function episodePool(
  config: LoadedConfig,
  login: { database: string; role: string; password: string },
  max: number,
): pg.Pool {
  const { database, role, password } = login;
  const base = connectionConfig(config, database);
  const credentials = base.connectionString
    ? { connectionString: withUser(base.connectionString, role, password) }
    : { user: role, password };
  const pool = new pg.Pool({
    ...base,
    ...credentials,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    options: sessionOptions(config),
  });
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Run `fn` in one transaction on the episode database (`begin` chooses isolation / read-only). The database or the
 * connection failing is an InfrastructureError; a client that lost its connection is not returned to the pool.
 */
export async function episodeTransaction<T>(
  episode: Episode,
  fn: (client: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await connectEpisode(episode);
  let broken = false;
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    if (isInfrastructureFault(err)) throw asInfrastructureError(err, `transaction on ${episode.database}`);
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * A client of the episode's pool, with every setting back at its session start (the runtime's startup options):
 * tool SQL that ran on it before may have changed its timeouts, role or search path for the rest of the session.
 * A connection failure is an infrastructure error.
 */
export async function connectEpisode(episode: Episode): Promise<pg.PoolClient> {
  let client: pg.PoolClient | undefined;
  try {
    client = surviveServerLoss(await episode.pool.connect());
    await client.query(RESET_SESSION);
    return client;
  } catch (err) {
    client?.release(true);
    throw asInfrastructureError(err, `connect to episode database ${episode.database}`);
  }
}

/**
 * What every session of an episode role is bounded by: its role's defaults (ALTER ROLE SET) and the runtime's startup
 * options both hold them. A session can still raise its own (SET: PostgreSQL checks no privilege for these); the
 * runtime's sessions are reset to them at every checkout, and every session of the role ends at its teardown.
 */
export function sessionBounds(config: LoadedConfig): Record<string, number> {
  const { statementTimeoutMs, idleInTransactionTimeoutMs, lockTimeoutMs } = config.postgres.episodeBounds;
  return {
    statement_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
    lock_timeout: lockTimeoutMs,
  };
}

/** Back to the session's start: every setting (RESET ALL leaves the role out) to its startup value. */
const RESET_SESSION = 'RESET ALL; RESET ROLE';

/**
 * Startup options of every episode session. Client options outrank the defaults a role can give itself (ALTER ROLE
 * self SET), so the settings the runtime depends on (text formats, writable transactions, the search path) and the
 * configured bounds hold on every connection; a reattach also clears those defaults.
 */
function sessionOptions(config: LoadedConfig): string {
  const settings: Record<string, string | number> = {
    TimeZone: 'UTC',
    DateStyle: 'ISO,MDY',
    IntervalStyle: 'postgres',
    extra_float_digits: 1,
    bytea_output: 'hex',
    search_path: 'public',
    default_transaction_read_only: 'off',
    default_transaction_isolation: 'read\\ committed',
    ...sessionBounds(config),
  };
  return Object.entries(settings)
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
}

function withUser(connectionString: string, user: string, password: string): string {
  const url = new URL(connectionString);
  url.username = encodeURIComponent(user);
  url.password = encodeURIComponent(password);
  return url.toString();
}

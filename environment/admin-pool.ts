import pg from 'pg';
import type { LoadedConfig } from '../schemas/config.js';
import { connectionConfig } from './connection.js';
import { asInfrastructureError, isInfrastructureFault, surviveServerLoss } from './pg-faults.js';

/** A statement on the admin pool; a fault of the server or the connection is an InfrastructureError. */
export type AdminQuery = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params?: unknown[],
) => Promise<pg.QueryResult<R>>;

/** The shared admin pool (CREATE/DROP DATABASE, roles, resets), `max` connections. */
export function openAdminPool(config: LoadedConfig, max: number): pg.Pool {
  const admin = new pg.Pool({
    ...connectionConfig(config),
    max,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 10_000,
  });
  admin.on('error', () => undefined); // an idle client's socket error surfaces on the next query instead
  return admin;
}

export function adminQueryOf(admin: pg.Pool): AdminQuery {
  return async <R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]) => {
    try {
      return await admin.query<R>(sql, params);
    } catch (err) {
      if (isInfrastructureFault(err)) throw asInfrastructureError(err, 'admin connection');
      throw err;
    }
  };
}

/** A client of the admin pool, for a statement sequence on one session; a failure to connect is infrastructure. */
export async function adminClient(admin: pg.Pool): Promise<pg.PoolClient> {
  return surviveServerLoss(
    await admin.connect().catch((err) => {
      throw asInfrastructureError(err, 'admin connection');
    }),
  );
}

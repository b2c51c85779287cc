import type pg from 'pg';
import { InfrastructureError } from '../core/errors.js';

/**
 * The SQLSTATE the internal-table functions raise when the caller's attempt no longer holds the episode's lease (a
 * newer attempt claimed it, or the episode was retired): see internal-tables.ts.
 */
export const STALE_ATTEMPT_SQLSTATE = 'FSA01';
/** Raised by a claim on an episode that an earlier attempt finished and is tearing down. */
export const RETIRED_EPISODE_SQLSTATE = 'FSA02';

/**
 * An attempt of an episode that a newer attempt has taken over (or that finished), told so by the episode database:
 * it writes nothing more, stores no record and never tears the database down. Infrastructure, so never shown to an
 * agent and never scored: Temporal has already given up on this attempt.
 */
export class StaleAttemptError extends InfrastructureError {
  override name = 'StaleAttemptError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'fencing', options);
  }
}

/** The SQLSTATE of a PostgreSQL error, if it has one. */
export function sqlstateOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export function isStaleAttempt(err: unknown): boolean {
  const code = sqlstateOf(err);
  return err instanceof StaleAttemptError || code === STALE_ATTEMPT_SQLSTATE || code === RETIRED_EPISODE_SQLSTATE;
}

/**
 * SQLSTATE classes that mean the database, not the request, failed: connection (08), authorization (28: credentials
 * changed under us, e.g. an episode role that altered its own password, which a reattach restores), resources (53),
 * operator intervention / shutdown (57), system (58), internal (XX). Errors without a SQLSTATE come from the socket.
 */
const INFRASTRUCTURE_CLASSES = new Set(['08', '28', '53', '57', '58', 'XX']);

/**
 * lock_not_available: lock_timeout ended a lock wait. In an episode database only a session other than the caller's
 * (a stale attempt's, the runtime's) can hold a lock the caller needs, so the wait is the infrastructure's.
 */
const LOCK_TIMEOUT = '55P03';

export function isInfrastructureFault(err: unknown): boolean {
  if (err instanceof InfrastructureError || isStaleAttempt(err)) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (code === LOCK_TIMEOUT) return true;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return INFRASTRUCTURE_CLASSES.has(code.slice(0, 2));
  // node socket errors (ECONNREFUSED, ECONNRESET, ...) and pg's own connection errors
  if (typeof code === 'string' && code.startsWith('E')) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(
    err.message,
  );
}

export function asInfrastructureError(err: unknown, what: string): InfrastructureError {
  if (err instanceof InfrastructureError) return err;
  if (isStaleAttempt(err)) return new StaleAttemptError(`${what}: ${(err as Error).message}`, { cause: err });
  return new InfrastructureError(`postgres: ${what}: ${(err as Error).message}`, 'postgres', { cause: err });
}

const guarded = new WeakSet<pg.ClientBase>();

/**
 * A client checked out of a pg pool has no 'error' listener (the pool listens only while it is idle), so a server
 * that goes away between two queries of a transaction would raise an uncaught exception and take the worker down.
 * With this listener the loss surfaces instead as the failure of the next query, an infrastructure fault.
 */
export function surviveServerLoss<C extends pg.ClientBase>(client: C): C {
  if (!guarded.has(client)) {
    guarded.add(client);
    client.on('error', () => undefined);
  }
  return client;
}

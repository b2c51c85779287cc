import pg from 'pg';

/**
 * One writer at a time per rollout server: a lease on the server's URL that every path that publishes to it holds
 * for the whole of its work on it (publishPolicy: the publish; reconcileFleet: reading the server's version and the
 * publish it decides on). Under asynchronous steps, step n's publish and step n+1's reconcile run at once; without
 * the lease, a reconcile could read a restarted server's version, let a publish of version n land, and then publish
 * n-1 over it (docs/publishing.md, the rollout fleet).
 */
export interface ServerLeases {
  /** Runs `work` holding `url`'s lease, waiting until nobody else holds it. */
  hold<T>(url: string, work: () => Promise<T>): Promise<T>;
  /** Runs `work` holding `url`'s lease if nobody holds it now; `{ held: false }`, without running it, otherwise. */
  tryHold<T>(url: string, work: () => Promise<T>): Promise<{ held: true; value: T } | { held: false }>;
}

/** The lease's key: a URL as the fleet names it, without trailing slashes. */
const keyOf = (url: string) => `finalstate.policy-server:${url.replace(/\/+$/, '')}`;

/**
 * Leases in the control database, shared by every control worker: a PostgreSQL session advisory lock on the URL's
 * hash, held on a connection of its own for as long as the work runs (so a long reload never holds one of the
 * worker's pooled connections). A worker that dies loses its connection and with it the lease; one that is only
 * cut off keeps both, and nobody publishes to its servers meanwhile.
 */
export function postgresServerLeases(connection: pg.ClientConfig): ServerLeases {
  async function leased<T>(url: string, wait: boolean, work: () => Promise<T>) {
    const client = new pg.Client(connection);
    // A connection lost while the work runs surfaces at the unlock below; without a listener it would kill the process.
    client.on('error', () => undefined);
    await client.connect();
    try {
      const key = keyOf(url);
      if (wait) await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
      else {
        const { rows } = await client.query<{ held: boolean }>(
          'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held',
          [key],
        );
        if (!rows[0]!.held) return { held: false as const };
      }
      try {
        return { held: true as const, value: await work() };
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(() => undefined);
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return {
    hold: async (url, work) => {
      const outcome = await leased(url, true, work);
      if (!outcome.held) throw new Error(`the lease on ${url} was not taken`);
      return outcome.value;
    },
    tryHold: (url, work) => leased(url, false, work),
  };
}

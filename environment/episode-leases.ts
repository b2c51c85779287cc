import type pg from 'pg';
import { StaleAttemptError } from './pg-faults.js';

/**
 * A control-database table of live episodes that fences their attempts: one row per episode (`episode_id`, `attempt`,
 * `lease`, `updated_at`), held by the attempt whose lease it carries. A newer attempt claims the row under a new
 * lease; an older one is refused, as on a PostgreSQL episode's own lease. Every write names the lease it holds; a write
 * under a lease another attempt has taken over is a StaleAttemptError. The tables of ThinkingBox's and OpenEnv's
 * episodes (their sessions live on other servers, which have no place for this) add their own columns.
 */
export class EpisodeLeaseTable<Row extends object> {
  /**
   * `leases`: the pool whose connections hold the row locks of `underLease`, apart from `db`: what runs under the
   * lease (storing the record) takes connections of the control pool, which leases held there could starve.
   */
  constructor(
    protected readonly db: pg.Pool,
    protected readonly leases: pg.Pool,
    private readonly table: string,
  ) {}

  /** Claim an existing row for `attempt` under a new lease; undefined when the episode has none yet. */
  protected async claimRow(episodeId: string, attempt: number | null, lease: string): Promise<Row | undefined> {
    const res = await this.db.query<Row>(
      `UPDATE ${this.table} SET lease = $3, attempt = $2, updated_at = now()
        WHERE episode_id = $1 AND ($2::int IS NULL OR attempt IS NULL OR attempt <= $2)
        RETURNING *`,
      [episodeId, attempt, lease],
    );
    if (res.rows[0]) return res.rows[0];
    const exists = await this.db.query<{ attempt: number | null }>(
      `SELECT attempt FROM ${this.table} WHERE episode_id = $1`,
      [episodeId],
    );
    if (exists.rows[0])
      throw new StaleAttemptError(
        `episode ${episodeId}: attempt ${attempt} is older than attempt ${exists.rows[0].attempt}, which holds it`,
      );
    return undefined;
  }

  /** Run `fn` while holding the lease (the row locked FOR SHARE); a stale lease gets a StaleAttemptError. */
  async underLease<T>(episodeId: string, lease: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.leases.connect();
    try {
      await client.query('BEGIN');
      const held = await client.query(`SELECT 1 FROM ${this.table} WHERE episode_id = $1 AND lease = $2 FOR SHARE`, [
        episodeId,
        lease,
      ]);
      if (held.rowCount === 0) throw new StaleAttemptError(`episode ${episodeId}: another attempt holds it`);
      const result = await fn();
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Forget the episode; only under its own lease. */
  async remove(episodeId: string, lease: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.table} WHERE episode_id = $1 AND lease = $2`, [episodeId, lease]);
  }

  /** An UPDATE of the episode's row under its lease (params[0] the episode id, params[1] the lease). */
  protected async write(sql: string, params: unknown[]): Promise<void> {
    const res = await this.db.query(sql, params);
    if (res.rowCount === 0) throw new StaleAttemptError(`episode ${String(params[0])}: another attempt holds it`);
  }
}

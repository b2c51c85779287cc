import type pg from 'pg';
import { StaleAttemptError } from '../pg-faults.js';

/** A ThinkingBox episode's row in the control database (storage/migrations/0013_thinkingbox_episodes.sql). */
export interface ThinkingBoxEpisodeRow {
  episodeId: string;
  sessionId: string;
  proxyUrl: string;
  attempt: number | null;
  lease: string;
  sentCalls: number;
  checkpoint: unknown;
  initResult: Record<string, unknown>;
}

interface Row {
  episode_id: string;
  session_id: string;
  proxy_url: string;
  attempt: number | null;
  lease: string;
  sent_calls: number;
  checkpoint: unknown;
  init_result: Record<string, unknown> | null;
}

const fromRow = (r: Row): ThinkingBoxEpisodeRow => ({
  episodeId: r.episode_id,
  sessionId: r.session_id,
  proxyUrl: r.proxy_url,
  attempt: r.attempt,
  lease: r.lease,
  sentCalls: r.sent_calls,
  checkpoint: r.checkpoint,
  initResult: r.init_result ?? {},
});

/**
 * The control database's record of live ThinkingBox episodes: which proxy session holds each one's state, which
 * attempt holds it (an older attempt is refused, as on a PostgreSQL episode's own lease), how many tool calls were
 * sent, and the last turn checkpoint. Every write names the lease it holds; a write under a lease another attempt
 * has taken over is a StaleAttemptError.
 */
export class ThinkingBoxEpisodeRows {
  /**
   * `leases`: the pool whose connections hold the row locks of `underLease`, apart from `db`: what runs under the
   * lease (storing the record) takes connections of the control pool, which leases held there could starve.
   */
  constructor(
    private readonly db: pg.Pool,
    private readonly leases: pg.Pool = db,
  ) {}

  /** Claim an existing row for `attempt` under a new lease; undefined when the episode has none yet. */
  async claim(episodeId: string, attempt: number | null, lease: string): Promise<ThinkingBoxEpisodeRow | undefined> {
    const res = await this.db.query<Row>(
      `UPDATE thinkingbox_episodes SET lease = $3, attempt = $2, updated_at = now()
        WHERE episode_id = $1 AND ($2::int IS NULL OR attempt IS NULL OR attempt <= $2)
        RETURNING *`,
      [episodeId, attempt, lease],
    );
    if (res.rows[0]) return fromRow(res.rows[0]);
    const exists = await this.db.query<{ attempt: number | null }>(
      'SELECT attempt FROM thinkingbox_episodes WHERE episode_id = $1',
      [episodeId],
    );
    if (exists.rows[0])
      throw new StaleAttemptError(
        `episode ${episodeId}: attempt ${attempt} is older than attempt ${exists.rows[0].attempt}, which holds it`,
      );
    return undefined;
  }

  async insert(row: Omit<ThinkingBoxEpisodeRow, 'sentCalls' | 'checkpoint'>): Promise<void> {
    await this.db.query(
      `INSERT INTO thinkingbox_episodes (episode_id, session_id, proxy_url, attempt, lease, init_result)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.episodeId, row.sessionId, row.proxyUrl, row.attempt, row.lease, JSON.stringify(row.initResult)],
    );
  }

  /** Point the episode at a fresh session: no call sent, no checkpoint (it starts over). */
  async restart(episodeId: string, lease: string, sessionId: string, initResult: Record<string, unknown>) {
    await this.write(
      `UPDATE thinkingbox_episodes SET session_id = $3, init_result = $4, sent_calls = 0, checkpoint = NULL,
              updated_at = now() WHERE episode_id = $1 AND lease = $2`,
      [episodeId, lease, sessionId, JSON.stringify(initResult)],
    );
  }

  /** Count a call as sent, before it is sent: a retried attempt that finds more sent than checkpointed starts over. */
  async countSent(episodeId: string, lease: string): Promise<void> {
    await this.write(
      'UPDATE thinkingbox_episodes SET sent_calls = sent_calls + 1, updated_at = now() WHERE episode_id = $1 AND lease = $2',
      [episodeId, lease],
    );
  }

  async saveCheckpoint(episodeId: string, lease: string, checkpoint: unknown): Promise<void> {
    await this.write(
      'UPDATE thinkingbox_episodes SET checkpoint = $3, updated_at = now() WHERE episode_id = $1 AND lease = $2',
      [episodeId, lease, JSON.stringify(checkpoint)],
    );
  }

  /** Run `fn` while holding the lease (the row locked FOR SHARE); a stale lease gets a StaleAttemptError. */
  async underLease<T>(episodeId: string, lease: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.leases.connect();
    try {
      await client.query('BEGIN');
      const held = await client.query(
        'SELECT 1 FROM thinkingbox_episodes WHERE episode_id = $1 AND lease = $2 FOR SHARE',
        [episodeId, lease],
      );
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

  /** Forget the episode (its session is destroyed); only under its own lease. */
  async remove(episodeId: string, lease: string): Promise<void> {
    await this.db.query('DELETE FROM thinkingbox_episodes WHERE episode_id = $1 AND lease = $2', [episodeId, lease]);
  }

  /** Rows untouched for `minutes` (their episodes died): the janitor destroys their sessions and drops them. */
  async idleSince(minutes: number): Promise<ThinkingBoxEpisodeRow[]> {
    const res = await this.db.query<Row>(
      'SELECT * FROM thinkingbox_episodes WHERE updated_at < now() - make_interval(mins => $1::int)',
      [Math.ceil(minutes)],
    );
    return res.rows.map(fromRow);
  }

  async drop(episodeId: string, sessionId: string): Promise<void> {
    await this.db.query('DELETE FROM thinkingbox_episodes WHERE episode_id = $1 AND session_id = $2', [
      episodeId,
      sessionId,
    ]);
  }

  private async write(sql: string, params: unknown[]): Promise<void> {
    const res = await this.db.query(sql, params);
    if (res.rowCount === 0) throw new StaleAttemptError(`episode ${String(params[0])}: another attempt holds it`);
  }
}

import type pg from 'pg';
import { EpisodeLeaseTable } from '../episode-leases.js';

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
 * The control database's record of live ThinkingBox episodes (an EpisodeLeaseTable): which proxy session holds each
 * one's state, which attempt holds it, how many tool calls were sent, and the last turn checkpoint.
 */
export class ThinkingBoxEpisodeRows extends EpisodeLeaseTable<Row> {
  constructor(db: pg.Pool, leases: pg.Pool = db) {
    super(db, leases, 'thinkingbox_episodes');
  }

  /** Claim an existing row for `attempt` under a new lease; undefined when the episode has none yet. */
  async claim(episodeId: string, attempt: number | null, lease: string): Promise<ThinkingBoxEpisodeRow | undefined> {
    const row = await this.claimRow(episodeId, attempt, lease);
    return row && fromRow(row);
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
}

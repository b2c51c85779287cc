import type pg from 'pg';
import { EpisodeLeaseTable } from '../episode-leases.js';

interface Row {
  episode_id: string;
  url: string;
  attempt: number | null;
  lease: string;
}

/**
 * The control database's record of OpenEnv episodes in flight (storage/migrations/0014_openenv_episodes.sql, an
 * EpisodeLeaseTable): which attempt holds each one. There is nothing to reattach to (a session dies with its
 * WebSocket): a retried attempt claims the row and starts over, and the attempt it took over can no longer write.
 */
export class OpenEnvEpisodeRows extends EpisodeLeaseTable<Row> {
  constructor(db: pg.Pool, leases: pg.Pool = db) {
    super(db, leases, 'openenv_episodes');
  }

  /** Hold the episode for `attempt` under `lease`: the row claimed from an older attempt, or a new one. */
  async hold(episodeId: string, attempt: number | null, lease: string, url: string): Promise<void> {
    if (await this.claimRow(episodeId, attempt, lease)) return;
    const inserted = await this.db.query(
      `INSERT INTO openenv_episodes (episode_id, url, attempt, lease) VALUES ($1, $2, $3, $4)
       ON CONFLICT (episode_id) DO NOTHING`,
      [episodeId, url, attempt, lease],
    );
    if (inserted.rowCount === 1) return;
    // another attempt inserted it meanwhile: claim it, or be refused as the older one
    if (!(await this.claimRow(episodeId, attempt, lease)))
      throw new Error(`episode ${episodeId}: its openenv_episodes row vanished while it was claimed`);
  }

  /** Still held by this lease (a turn's end): a stale attempt stops here, before it plays on. */
  async touch(episodeId: string, lease: string): Promise<void> {
    await this.write('UPDATE openenv_episodes SET updated_at = now() WHERE episode_id = $1 AND lease = $2', [
      episodeId,
      lease,
    ]);
  }
}

import type pg from 'pg';
import { EpisodeRecord } from '../../schemas/episode.js';

/** Episode records in the control database (table `episodes`, created by infra/migrations). */
export class EpisodeStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Upsert: a retried attempt that completes replaces nothing but its own row. */
  async save(record: EpisodeRecord): Promise<void> {
    const o = record.outcome;
    await this.pool.query(
      `INSERT INTO episodes (episode_id, campaign_id, step, group_index, task_id, trial, reward, error, finish_reason, record)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (episode_id) DO UPDATE SET reward = EXCLUDED.reward, error = EXCLUDED.error,
         finish_reason = EXCLUDED.finish_reason, record = EXCLUDED.record, stored_at = now()`,
      [o.episodeId, o.campaignId ?? null, o.step ?? null, record.group ?? null, o.taskId, o.trial, o.reward, o.error, o.finishReason, JSON.stringify(record)],
    );
  }

  async load(episodeId: string): Promise<EpisodeRecord | undefined> {
    const res = await this.pool.query<{ record: unknown }>('SELECT record FROM episodes WHERE episode_id = $1', [episodeId]);
    return res.rows[0] ? EpisodeRecord.parse(res.rows[0].record) : undefined;
  }
}

import type pg from 'pg';
import { EpisodeRecord, type FinishReason } from '../../schemas/episode.js';
import { readableJson } from '../../storage/readable-json.js';

/** Which stored episodes `list` returns; every field narrows the selection. */
export interface EpisodeFilter {
  campaignId?: string;
  step?: number;
  taskId?: string;
  trial?: number;
  reward?: 0 | 1;
  finishReason?: FinishReason;
  /** Only episodes whose id starts with this (a result set, e.g. "<campaign>/eval-step-1/"). */
  idPrefix?: string;
  limit?: number;
}

/** One line of an episode listing: the indexed columns and the summary line, without the big record. */
export interface EpisodeListing {
  episodeId: string;
  campaignId: string | null;
  step: number | null;
  group: number | null;
  taskId: string;
  trial: number;
  reward: 0 | 1;
  error: string | null;
  finishReason: string;
  summary: string | null;
  /** The token trajectory in the artifact store (served policies only). */
  trajectoryUri: string | null;
  storedAt: string;
}

/**
 * Episode records in the control database (table `episodes`, created by storage/migrations). The record column is
 * json, which keeps the text as written (key order included); it is written by readableJson, so every json operator
 * and reader accepts it whatever the model wrote, and the table refuses a record that is not (migration 0012).
 */
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
      [
        o.episodeId,
        o.campaignId ?? null,
        o.step ?? null,
        record.group ?? null,
        o.taskId,
        o.trial,
        o.reward,
        o.error,
        o.finishReason,
        readableJson(record),
      ],
    );
  }

  async load(episodeId: string): Promise<EpisodeRecord | undefined> {
    return (await this.loadWithTime(episodeId))?.record;
  }

  async loadWithTime(episodeId: string): Promise<{ record: EpisodeRecord; storedAt: Date } | undefined> {
    const res = await this.pool.query<{ record: unknown; stored_at: Date }>(
      'SELECT record, stored_at FROM episodes WHERE episode_id = $1',
      [episodeId],
    );
    return res.rows[0]
      ? { record: EpisodeRecord.parse(res.rows[0].record), storedAt: res.rows[0].stored_at }
      : undefined;
  }

  /** Records of many episodes at once (the report's episode pages), in the order of the ids; unknown ids are left out. */
  async loadMany(episodeIds: readonly string[]): Promise<EpisodeRecord[]> {
    if (episodeIds.length === 0) return [];
    const res = await this.pool.query<{ episode_id: string; record: unknown }>(
      'SELECT episode_id, record FROM episodes WHERE episode_id = ANY($1)',
      [episodeIds],
    );
    const byId = new Map(res.rows.map((r) => [r.episode_id, r.record]));
    return episodeIds.flatMap((id) => (byId.has(id) ? [EpisodeRecord.parse(byId.get(id))] : []));
  }

  /** Stored episodes matching the filter, in campaign, step, task and trial order. */
  async list(filter: EpisodeFilter = {}): Promise<EpisodeListing[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      values.push(value);
      where.push(sql.replace('?', `$${values.length}`));
    };
    if (filter.campaignId !== undefined) add('campaign_id = ?', filter.campaignId);
    if (filter.step !== undefined) add('step = ?', filter.step);
    if (filter.taskId !== undefined) add('task_id = ?', filter.taskId);
    if (filter.trial !== undefined) add('trial = ?', filter.trial);
    if (filter.reward !== undefined) add('reward = ?', filter.reward);
    if (filter.finishReason !== undefined) add('finish_reason = ?', filter.finishReason);
    if (filter.idPrefix !== undefined) add('starts_with(episode_id, ?)', filter.idPrefix);
    const limit = filter.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(filter.limit))}` : '';
    const res = await this.pool.query<{
      episode_id: string;
      campaign_id: string | null;
      step: number | null;
      group_index: number | null;
      task_id: string;
      trial: number;
      reward: number;
      error: string | null;
      finish_reason: string;
      summary: string | null;
      trajectory_uri: string | null;
      stored_at: Date;
    }>(
      `SELECT episode_id, campaign_id, step, group_index, task_id, trial, reward, error, finish_reason,
              record->'outcome'->>'summary' AS summary, record->'outcome'->>'trajectoryUri' AS trajectory_uri, stored_at
       FROM episodes ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY campaign_id, step, episode_id${limit}`,
      values,
    );
    return res.rows.map((r) => ({
      episodeId: r.episode_id,
      campaignId: r.campaign_id,
      step: r.step,
      group: r.group_index,
      taskId: r.task_id,
      trial: r.trial,
      reward: r.reward === 1 ? 1 : 0,
      error: r.error,
      finishReason: r.finish_reason,
      summary: r.summary,
      trajectoryUri: r.trajectory_uri,
      storedAt: r.stored_at.toISOString(),
    }));
  }
}

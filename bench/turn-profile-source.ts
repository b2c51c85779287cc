// Reads real episodes for bench/cluster-sim's --profile-from: the trajectories (token segments) of a campaign's
// episodes in the control database (table `episodes`, whose records give the task and the time off the server), or of
// every trajectory.json under a directory (the artifact store's episodes/<id>/trajectory.json).
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/errors.js';
import { localPathOf } from '../storage/artifacts.js';
import { EpisodeRecord } from '../schemas/episode.js';
import { Trajectory } from '../schemas/trajectory.js';
import type { ProfiledEpisode } from '../schemas/turn-profile.js';
import { profiledEpisode } from '../testkit/cluster-sim/turn-profile.js';
import { loadConfig } from '../workers/config.js';
import { controlPool } from '../workers/stores.js';

const readTrajectory = (file: string) => Trajectory.parse(JSON.parse(fs.readFileSync(file, 'utf8')));

/** Every trajectory.json under `dir`, without records (no task ids, no time off the server). */
export function episodesFromDirectory(dir: string): ProfiledEpisode[] {
  const files = fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name === 'trajectory.json')
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
  if (files.length === 0) throw new UserError(`cluster-sim --profile-from: no trajectory.json under ${dir}`);
  return files.flatMap((f) => profiledEpisode(readTrajectory(f).segments) ?? []);
}

/** The served-policy episodes of campaign `campaignId` that completed (error null), with their trajectories. */
export async function episodesOfCampaign(campaignId: string): Promise<ProfiledEpisode[]> {
  const pool = controlPool(loadConfig(), 1);
  const found: ProfiledEpisode[] = [];
  try {
    const page = 200;
    for (let offset = 0; ; offset += page) {
      const res = await pool.query<{ record: unknown }>(
        `SELECT record FROM episodes WHERE campaign_id = $1 AND error IS NULL ORDER BY episode_id LIMIT ${page} OFFSET ${offset}`,
        [campaignId],
      );
      for (const row of res.rows) {
        const record = EpisodeRecord.parse(row.record);
        const uri = record.outcome.trajectoryUri;
        if (!uri || !fs.existsSync(localPathOf(uri))) continue;
        const episode = profiledEpisode(readTrajectory(localPathOf(uri)).segments, record);
        if (episode) found.push(episode);
      }
      if (res.rows.length < page) break;
    }
  } finally {
    await pool.end();
  }
  if (found.length === 0)
    throw new UserError(
      `cluster-sim --profile-from: campaign ${JSON.stringify(campaignId)} has no completed episode with a trajectory in the control database`,
    );
  return found;
}

import type pg from 'pg';
import type { UnfinishedCriterion } from '../../schemas/demo.js';
import type { FinishReason } from '../../schemas/episode.js';
import { judgeUnfinished, type EpisodeCostRow, type UnfinishedVerdict } from '../../stats/unfinished.js';

const ROW_SQL = `SELECT finish_reason AS "finishReason",
    coalesce((record->'outcome'->'usage'->'agent'->>'inputTokens')::bigint, 0)
      + coalesce((record->'outcome'->'usage'->'agent'->>'outputTokens')::bigint, 0) AS "agentTokens",
    coalesce((record->'outcome'->>'costUsd')::float8, 0) AS "costUsd"
  FROM episodes WHERE error IS NULL AND `;

const asRows = (rows: { finishReason: string; agentTokens: string; costUsd: number }[]): EpisodeCostRow[] =>
  rows.map((r) => ({
    finishReason: r.finishReason as FinishReason,
    agentTokens: Number(r.agentTokens),
    costUsd: r.costUsd,
  }));

/**
 * The campaign's training-split episodes that the criterion compares: the base policy's probe, and the rollouts of the
 * last `lastSteps` GRPO steps (replayed steps included), from the control database's episode records.
 */
export async function judgeCampaignUnfinished(
  control: pg.Pool,
  campaignId: string,
  steps: number,
  criterion: UnfinishedCriterion,
): Promise<UnfinishedVerdict> {
  const probe = await control.query(`${ROW_SQL} starts_with(episode_id, $1)`, [`${campaignId}/probe/`]);
  const firstStep = Math.max(1, steps - criterion.lastSteps + 1);
  const rollouts = await control.query(
    `${ROW_SQL} starts_with(episode_id, $1)
       AND substring(episode_id FROM length($1) + 1) ~ '^[0-9]+(-replay-[0-9]+)?/g'
       AND substring(substring(episode_id FROM length($1) + 1) FROM '^[0-9]+')::int BETWEEN $2 AND $3`,
    [`${campaignId}/step-`, firstStep, steps],
  );
  return judgeUnfinished(asRows(probe.rows), asRows(rollouts.rows), criterion);
}

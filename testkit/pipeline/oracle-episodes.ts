import { readTaskSet } from '../../environment/task-set.js';
import { fromRoot } from '../../core/paths.js';
import type { LoadedConfig } from '../../schemas/config.js';
import { withClient } from '../../infra/stack/postgres.js';
import type { EnvironmentBackend } from '../../environment/backend.js';
import { episodeNames } from '../../environment/naming.js';
import { stackKey } from '../../environment/episode-credentials.js';
import { EpisodeLimits } from '../../schemas/episode.js';
import type { EpisodeRetryConfig } from '../../schemas/campaign.js';
import type { EpisodeSettings, TaskQueues } from '../../schemas/pipeline.js';
import type { Task } from '../../schemas/task.js';
import { uniqueName } from '../names.js';

/** Episode settings of the real-runner pipeline tests: the oracle as the agent, the deterministic user, default limits. */
export function oracleSettings(queues: TaskQueues, retry: EpisodeRetryConfig): EpisodeSettings {
  return {
    policy: { kind: 'oracle' },
    user: { kind: 'scripted' },
    limits: EpisodeLimits.parse({}),
    retry,
    queues,
    seed: 1,
  };
}

/**
 * The episode the resume tests run: a travel task whose six golden calls include three writes, two of them inserts
 * (create_ticket, issue_refund) whose rows can be counted, and an update (cancel_hotel_stay) that a second run would
 * have the tool refuse.
 */
export const RESUME_TASK_SET = fromRoot('tasks', 'travel', 'travel-train-full.manifest.json');
export const RESUME_TASK_ID = firstTaskOfType(RESUME_TASK_SET, 'hotel_cancel_free');

/** The id of the first task of a type in a task set (ids carry generated entity numbers; the type is what matters). */
export function firstTaskOfType(taskSet: string, type: string): string {
  const task = readTaskSet(taskSet).tasks.find((t) => t.tags[0] === type);
  if (!task) throw new Error(`no ${type} task in ${taskSet}`);
  return task.id;
}

export interface EpisodeDatabaseCounts {
  tickets: number;
  refunds: number;
  toolCalls: { callIndex: number; tool: string }[];
  checkpointTurns: number | null;
}

/** Rows of an episode database, read as the cluster's superuser (episode databases admit only their own role otherwise). */
export async function countEpisodeRows(config: LoadedConfig, episodeId: string): Promise<EpisodeDatabaseCounts> {
  return withClient(config, episodeNames(stackKey(config.dataPath), episodeId).database, async (client) => {
    const count = async (table: string) =>
      Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    const calls = await client.query<{ call_index: number; tool: string }>(
      'SELECT call_index, tool FROM _finalstate_tool_calls ORDER BY call_index',
    );
    const checkpoint = await client.query<{ agent_turns: number }>('SELECT agent_turns FROM _finalstate_checkpoint');
    return {
      tickets: await count('tickets'),
      refunds: await count('refunds'),
      toolCalls: calls.rows.map((r) => ({ callIndex: r.call_index, tool: r.tool })),
      checkpointTurns: checkpoint.rows[0]?.agent_turns ?? null,
    };
  });
}

/** The task's rows before any call: a freshly provisioned episode database of the same task, counted and dropped. */
export async function freshEpisodeCounts(
  config: LoadedConfig,
  backend: EnvironmentBackend,
  task: Task,
): Promise<EpisodeDatabaseCounts> {
  const id = uniqueName('resume-fresh');
  await backend.detach(await backend.open(id, task));
  try {
    return await countEpisodeRows(config, id);
  } finally {
    const { database, role } = backend.names(id);
    await backend.dropByName(database, role);
  }
}

import type pg from 'pg';
import type { EnvironmentBackend, Episode } from '../../environment/backend.js';
import { isStaleAttempt } from '../../environment/pg-faults.js';
import { snapshotHash, takeSnapshot } from '../../environment/snapshot.js';

/**
 * TEST-ONLY: what the effects check needs of an episode database, captured just before the database is torn down
 * (and reset for reuse): its tool-call records and the hash of its final state. The chaos fleet runs with the default
 * reset-and-reuse provisioning, so the databases themselves are gone by the time the check runs.
 */
export interface FinalState {
  episodeId: string;
  toolCalls: { call_index: number; tool: string; arguments: Record<string, unknown>; is_error: boolean }[];
  stateSha256: string;
}

/** Kept in the control database of the chaos stack (never in a real one): one row per episode, the last teardown's. */
const TABLE = 'chaos_final_states';

/** The capture's sessions carry this name, so the chaos grading faults never take one of them for grading. */
export const CAPTURE_APPLICATION_NAME = 'chaos-final-state';

export async function ensureFinalStatesTable(control: pg.Pool): Promise<void> {
  await control.query(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (episode_id text PRIMARY KEY, tool_calls jsonb NOT NULL, state_sha256 text NOT NULL, captured_at timestamptz NOT NULL DEFAULT now())`,
  );
}

/** Read an episode database's records and final state (under its lease: a stale attempt captures nothing). */
export async function captureFinalState(
  backend: EnvironmentBackend,
  episode: Episode,
  control: pg.Pool,
): Promise<void> {
  await backend.underLease(episode, async () => {
    const toolCalls = (
      await episode.pool.query<FinalState['toolCalls'][number]>(
        'SELECT call_index, tool, arguments, is_error FROM _finalstate_tool_calls ORDER BY call_index',
      )
    ).rows;
    const stateSha256 = await backend.transaction(
      episode,
      async (c) => {
        await c.query(`SET LOCAL application_name = '${CAPTURE_APPLICATION_NAME}'`);
        return snapshotHash(await takeSnapshot(c, episode.domain, episode.catalog));
      },
      'BEGIN READ ONLY',
    );
    await control.query(
      `INSERT INTO ${TABLE} (episode_id, tool_calls, state_sha256) VALUES ($1, $2, $3)
       ON CONFLICT (episode_id) DO UPDATE SET tool_calls = EXCLUDED.tool_calls, state_sha256 = EXCLUDED.state_sha256, captured_at = now()`,
      [episode.episodeId, JSON.stringify(toolCalls), stateSha256],
    );
  });
}

/**
 * Make every teardown of `backend` capture the episode's final state first. A stale attempt's teardown captures
 * nothing (the live attempt's will); any other failure fails the teardown, so the attempt is retried and its retry
 * captures instead.
 */
export function captureBeforeTeardown(backend: EnvironmentBackend, control: pg.Pool): void {
  const teardown = backend.teardown.bind(backend);
  backend.teardown = async (episode, options) => {
    await captureFinalState(backend, episode, control).catch((err: unknown) => {
      if (!isStaleAttempt(err)) throw err;
    });
    return teardown(episode, options);
  };
}

export async function loadFinalStates(control: pg.Pool, episodeIds: string[]): Promise<Map<string, FinalState>> {
  const res = await control.query<{ episode_id: string; tool_calls: FinalState['toolCalls']; state_sha256: string }>(
    `SELECT episode_id, tool_calls, state_sha256 FROM ${TABLE} WHERE episode_id = ANY($1)`,
    [episodeIds],
  );
  return new Map(
    res.rows.map((r) => [
      r.episode_id,
      { episodeId: r.episode_id, toolCalls: r.tool_calls, stateSha256: r.state_sha256 },
    ]),
  );
}

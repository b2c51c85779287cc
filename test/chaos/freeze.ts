import type { LoadedConfig } from '../../schemas/config.js';
import { EPISODE_GROUP_ROLE } from '../../environment/naming.js';
import { withClient } from '../../infra/stack/postgres.js';
import { sleep } from '../../infra/stack/process.js';

/** Sends `signal` to each process, skipping those already gone. */
function signal(pids: readonly number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // the session ended meanwhile
    }
  }
}

/**
 * A hung tool as a real cluster has it: every PostgreSQL server process serving an episode role's session (tool
 * calls, checkpoints, grading) stopped with SIGSTOP for `ms`, then continued: the sessions stay connected and answer
 * nothing, like a frozen server or a connection gone silent, so no statement timeout of the server's can end them.
 * Sessions opened meanwhile are served by new processes, as a retried attempt's are. Returns how many were stopped.
 */
export async function freezeEpisodeSessions(config: LoadedConfig, ms: number): Promise<number> {
  const pids = await withClient(config, undefined, async (c) =>
    (
      await c.query<{ pid: number }>(
        `SELECT a.pid FROM pg_stat_activity a JOIN pg_auth_members m ON m.member = a.usesysid
         WHERE a.backend_type = 'client backend' AND m.roleid = to_regrole($1)`,
        [EPISODE_GROUP_ROLE],
      )
    ).rows.map((r) => r.pid),
  );
  signal(pids, 'SIGSTOP');
  try {
    await sleep(ms);
  } finally {
    signal(pids, 'SIGCONT');
  }
  return pids.length;
}

import type { ThinkingBoxEpisodeRows } from './episode-rows.js';
import type { ThinkingBoxProxyClient } from './proxy-client.js';

/**
 * Destroys the sessions of ThinkingBox episodes that died (no attempt touched their row for `idleMinutes`: a worker
 * killed mid-episode, an episode whose retries ran out), so their server processes do not outlive them. Returns the
 * episode ids it cleaned. A live episode writes its row every turn, so an idle one is a dead one.
 */
export async function collectDeadSessions(
  rows: ThinkingBoxEpisodeRows,
  proxy: ThinkingBoxProxyClient,
  idleMinutes: number,
): Promise<string[]> {
  const cleaned: string[] = [];
  for (const row of await rows.idleSince(idleMinutes)) {
    await proxy.destroySession(row.sessionId);
    await rows.drop(row.episodeId, row.sessionId);
    cleaned.push(row.episodeId);
  }
  return cleaned;
}

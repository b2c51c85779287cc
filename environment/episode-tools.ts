import type { EnvironmentBackend, Episode } from './backend.js';
import { EpisodeMcpClient } from './mcp-client.js';
import { createEpisodeMcpServer } from './mcp-server.js';
import { STUCK_GRACE_MS } from './tool-call-watch.js';
import { EpisodeToolExecutor } from './tool-executor.js';

export interface EpisodeTools {
  executor: EpisodeToolExecutor;
  client: EpisodeMcpClient;
  close(): Promise<void>;
}

/**
 * The longest an in-process call can take when every bound holds: its handler's timeout, then a statement in flight
 * at that moment waited for until it is answered or found stuck (STUCK_GRACE_MS past the statement timeout), then
 * the record and COMMIT (each bounded the same way), and the session's termination (2 s). Past it, the MCP client
 * gives up (an infrastructure failure): only a server that lost track of the call gets there.
 */
function callTimeoutMs(backend: EnvironmentBackend): number {
  const { toolCallTimeoutMs, statementTimeoutMs } = backend.config.postgres.episodeBounds;
  const statement = statementTimeoutMs > 0 ? statementTimeoutMs + STUCK_GRACE_MS : 0;
  return toolCallTimeoutMs + 3 * statement + 2_000 + 10_000;
}

/** The default wiring of an episode's tools: its MCP server connected in-process to a client. */
export async function connectEpisodeTools(backend: EnvironmentBackend, episode: Episode): Promise<EpisodeTools> {
  const executor = new EpisodeToolExecutor(backend, episode);
  const server = createEpisodeMcpServer(executor);
  const client = await EpisodeMcpClient.inProcess(server, { callTimeoutMs: callTimeoutMs(backend) });
  return {
    executor,
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

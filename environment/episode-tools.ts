import type { EnvironmentBackend, Episode } from './backend.js';
import { EpisodeMcpClient } from './mcp-client.js';
import { createEpisodeMcpServer } from './mcp-server.js';
import { EpisodeToolExecutor } from './tool-executor.js';

export interface EpisodeTools {
  executor: EpisodeToolExecutor;
  client: EpisodeMcpClient;
  close(): Promise<void>;
}

/** The default wiring of an episode's tools: its MCP server connected in-process to a client. */
export async function connectEpisodeTools(backend: EnvironmentBackend, episode: Episode): Promise<EpisodeTools> {
  const executor = new EpisodeToolExecutor(backend, episode);
  const server = createEpisodeMcpServer(executor);
  const client = await EpisodeMcpClient.inProcess(server);
  return {
    executor,
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

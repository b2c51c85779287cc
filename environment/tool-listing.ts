import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolSchema } from '../schemas/conversation.js';
import type { Profile } from '../schemas/task.js';
import type { DomainDefinition } from './domain.js';
import { EpisodeMcpClient } from './mcp-client.js';
import { presentedTool } from './mcp-server.js';

/**
 * A domain's tools on a profile exactly as an episode's agent is offered them: registered on an MCP server the way
 * `createEpisodeMcpServer` registers them and listed through an MCP client (the SDK writes the JSON Schemas), with no
 * database behind them (calling one is an error).
 */
export async function listDomainTools(domain: DomainDefinition, profile: Profile): Promise<ToolSchema[]> {
  const server = new McpServer({ name: `finalstate-${domain.name}`, version: domain.version });
  const byName = new Map(domain.tools.map((t) => [t.name, t]));
  for (const name of domain.profileTools[profile]) {
    const tool = byName.get(name);
    if (!tool) continue;
    server.registerTool(tool.name, presentedTool(tool, profile), () => {
      throw new Error(`${domain.name}.${tool.name}: listed only, not callable`);
    });
  }
  const client = await EpisodeMcpClient.inProcess(server);
  try {
    return (await client.listTools()).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  } finally {
    await client.close();
    await server.close();
  }
}

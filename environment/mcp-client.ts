import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { InfrastructureError } from '../core/errors.js';
import { META_CALL_INDEX, META_INDEX_CONFLICT, META_INFRASTRUCTURE_ERROR, META_TOOL_FAULT } from './mcp-server.js';
import { ToolCallIndexConflict } from './tool-executor.js';

export interface ToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}

export interface ToolCallResult {
  isError: boolean;
  /** The text the agent sees (the JSON result, or the error message). */
  content: string;
  /** The tool's JSON result (undefined for errors). */
  structured: unknown;
  /** The index the call consumed; absent when it was refused before running (by the SDK's input validation, say). */
  callIndex?: number;
  /** Set when the handler failed with a bug rather than rejecting the call (nothing was kept). */
  fault?: string;
}

/** A small MCP client for one episode's tool server: list tools, call them, close. */
export class EpisodeMcpClient {
  private constructor(private readonly client: Client) {}

  static async connect(transport: Transport, name = 'finalstate-client'): Promise<EpisodeMcpClient> {
    const client = new Client({ name, version: '0.1.0' });
    await client.connect(transport);
    return new EpisodeMcpClient(client);
  }

  /** Connect to a server in this process (the default for episodes). */
  static async inProcess(server: McpServer): Promise<EpisodeMcpClient> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    return EpisodeMcpClient.connect(clientSide);
  }

  instructions(): string | undefined {
    return this.client.getInstructions();
  }

  async listTools(): Promise<ToolInfo[]> {
    const { tools } = await this.client.listTools();
    return tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      inputSchema: t.inputSchema as Record<string, unknown>,
      readOnly: t.annotations?.readOnlyHint === true,
    }));
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { callIndex?: number } = {},
  ): Promise<ToolCallResult> {
    const result = await this.client.callTool({
      name,
      arguments: args,
      ...(options.callIndex !== undefined ? { _meta: { [META_CALL_INDEX]: options.callIndex } } : {}),
    });
    const infra = result._meta?.[META_INFRASTRUCTURE_ERROR] as { component?: string; message?: string } | undefined;
    if (infra)
      throw new InfrastructureError(infra.message ?? 'tool server infrastructure error', infra.component ?? 'mcp');
    const conflict = result._meta?.[META_INDEX_CONFLICT];
    if (typeof conflict === 'string') throw new ToolCallIndexConflict(conflict);
    const blocks = (result.content ?? []) as { type: string; text?: string }[];
    const content = blocks
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('\n');
    const structured = (result.structuredContent as { result?: unknown } | undefined)?.result;
    const callIndex = result._meta?.[META_CALL_INDEX];
    const fault = result._meta?.[META_TOOL_FAULT];
    return {
      isError: result.isError === true,
      content,
      structured,
      ...(typeof callIndex === 'number' ? { callIndex } : {}),
      ...(typeof fault === 'string' ? { fault } : {}),
    };
  }

  /** Close the connection; over Streamable HTTP, end the session first (DELETE), so it stops counting against the server's cap. */
  async close(): Promise<void> {
    const transport = this.client.transport;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId)
      await transport.terminateSession().catch(() => undefined);
    await this.client.close();
  }
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { InfrastructureError } from '../core/errors.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  META_BUDGET_MS,
  META_BUDGET_SPENT,
  META_CALL_INDEX,
  META_INDEX_CONFLICT,
  META_INFRASTRUCTURE_ERROR,
  META_TOOL_FAULT,
} from './mcp-server.js';
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
  /** Set when the call was stopped because the budget the caller gave it ran out (nothing was kept). */
  budgetSpent?: true;
}

export interface McpClientOptions {
  /**
   * How long a tool call may go unanswered (the SDK's default is 60 s). An in-process server bounds its calls itself
   * (toolCallTimeoutMs, the statement timeout); a call unanswered past this is a server that lost track of it.
   */
  callTimeoutMs?: number;
}

/** A small MCP client for one episode's tool server: list tools, call them, close. */
export class EpisodeMcpClient {
  private constructor(
    private readonly client: Client,
    private readonly options: McpClientOptions,
  ) {}

  static async connect(
    transport: Transport,
    name = 'finalstate-client',
    options: McpClientOptions = {},
  ): Promise<EpisodeMcpClient> {
    const client = new Client({ name, version: '0.1.0' });
    await client.connect(transport);
    return new EpisodeMcpClient(client, options);
  }

  /** Connect to a server in this process (the default for episodes). */
  static async inProcess(server: McpServer, options: McpClientOptions = {}): Promise<EpisodeMcpClient> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    return EpisodeMcpClient.connect(clientSide, 'finalstate-client', options);
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

  /** `budgetMs`: the time the call may take (what is left of the episode's clock); past it the server stops it. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { callIndex?: number; budgetMs?: number } = {},
  ): Promise<ToolCallResult> {
    const meta = {
      ...(options.callIndex !== undefined ? { [META_CALL_INDEX]: options.callIndex } : {}),
      ...(options.budgetMs !== undefined ? { [META_BUDGET_MS]: Math.max(0, Math.floor(options.budgetMs)) } : {}),
    };
    let result;
    try {
      result = await this.client.callTool(
        { name, arguments: args, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) },
        undefined,
        this.options.callTimeoutMs !== undefined ? { timeout: this.options.callTimeoutMs } : {},
      );
    } catch (err) {
      if (err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number))
        throw new InfrastructureError(`mcp: tool ${name} had no answer from its server: ${err.message}`, 'mcp', {
          cause: err,
        });
      throw err;
    }
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
      ...(typeof result._meta?.[META_BUDGET_SPENT] === 'string' ? { budgetSpent: true as const } : {}),
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

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { InfrastructureError } from '../../core/errors.js';
import { describeFetchError, type ProxyAddress } from './proxy-client.js';

/** The header that routes an MCP request of the proxy to one session (thinkingbox.tools.session_proxy). */
export const TB_SESSION_ID_HEADER = 'X-TB-Session-Id';

export interface ProxyTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A tool's answer: its text, whether it is an error, and `timedOut` when no answer came in time (never re-sent). */
export interface ProxyToolAnswer {
  isError: boolean;
  text: string;
  timedOut?: true;
}

/**
 * One session's tools over the proxy's MCP endpoint, with the MCP TypeScript SDK. A call is sent once: one that gets
 * no answer within `callTimeoutMs` (the proxy's own limit is shorter: it answers with an error when its server stalls)
 * is answered to the agent as a tool that did not finish, and never sent again, since it may have run. A session the
 * proxy no longer has, a refused connection or a 5xx is an InfrastructureError.
 */
export class ProxySessionTools {
  private constructor(
    private readonly client: Client,
    private readonly callTimeoutMs: number,
  ) {}

  static async connect(
    address: ProxyAddress,
    sessionId: string,
    options: { callTimeoutMs: number; fetch?: typeof fetch },
  ): Promise<ProxySessionTools> {
    const headers: Record<string, string> = { [TB_SESSION_ID_HEADER]: sessionId };
    if (address.apiKey) headers.authorization = `Bearer ${address.apiKey}`;
    const transport = new StreamableHTTPClientTransport(new URL(`${address.url.replace(/\/+$/, '')}/mcp/`), {
      requestInit: { headers },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const client = new Client({ name: 'finalstate-thinkingbox', version: '0.1.0' });
    try {
      await client.connect(transport);
    } catch (err) {
      throw infrastructure(`connecting to the MCP endpoint of ${address.url} for session ${sessionId}`, err);
    }
    return new ProxySessionTools(client, options.callTimeoutMs);
  }

  async listTools(): Promise<ProxyTool[]> {
    try {
      const { tools } = await this.client.listTools();
      return tools.map((t) => ({
        name: t.name,
        description: t.description ?? '',
        inputSchema: t.inputSchema as Record<string, unknown>,
      }));
    } catch (err) {
      throw infrastructure('listing the session tools', err);
    }
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<ProxyToolAnswer> {
    let result;
    try {
      result = await this.client.callTool({ name, arguments: args }, undefined, {
        timeout: this.callTimeoutMs,
        resetTimeoutOnProgress: false,
      });
    } catch (err) {
      if (err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number))
        return { isError: true, text: `tool ${name} did not finish in time (it may have run)`, timedOut: true };
      if (err instanceof McpError && !/session not found|Missing X-TB-Session-Id/i.test(err.message))
        return { isError: true, text: err.message };
      throw infrastructure(`calling tool ${name}`, err);
    }
    const blocks = (result.content ?? []) as { type: string; text?: string }[];
    const text = blocks
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('\n');
    return { isError: result.isError === true, text };
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}

function infrastructure(what: string, err: unknown): InfrastructureError {
  return new InfrastructureError(`thinkingbox proxy: ${what}: ${describeFetchError(err)}`, 'thinkingbox', {
    cause: err,
  });
}

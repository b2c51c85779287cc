import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** Serve one MCP server over this process's stdin/stdout; resolves when the client closes the stream. */
export async function serveStdio(server: McpServer): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}

export interface HttpMcpEndpoint {
  url: string;
  close(): Promise<void>;
}

/**
 * Serve MCP over Streamable HTTP at `/mcp` on 127.0.0.1. Each client session gets its own McpServer from the
 * factory; all of them share the episode (its executor serialises their calls).
 */
export async function serveHttp(createServer: () => McpServer, port = 0): Promise<HttpMcpEndpoint> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  const httpServer = http.createServer((req, res) => {
    void (async () => {
      if (!req.url?.startsWith('/mcp')) {
        res.writeHead(404).end('not found; the MCP endpoint is /mcp');
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (existing) {
        await existing.transport.handleRequest(req, res);
        return;
      }
      if (sessionId !== undefined || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'unknown MCP session' }, id: null }));
        return;
      }
      const server = createServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server });
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    })().catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500).end(err.message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    async close() {
      for (const { server } of sessions.values()) await server.close().catch(() => undefined);
      sessions.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

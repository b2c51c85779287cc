import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import type { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { UserError } from '../core/errors.js';
import { McpHttpServeOptions } from '../schemas/mcp-http.js';

export interface HttpMcpEndpoint {
  url: string;
  /** The bearer token every request must carry (`Authorization: Bearer <token>`). */
  token: string;
  /** Sessions open now. */
  sessionCount(): number;
  close(): Promise<void>;
}

interface Session {
  id: string;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  /** Requests other than the long-lived GET event stream still being answered: closed with the session. */
  inFlight: Set<http.ServerResponse>;
  idleTimer?: NodeJS.Timeout;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** A fresh bearer token: 32 random bytes, base64url. */
export const newBearerToken = () => randomBytes(32).toString('base64url');

/** A JSON-RPC error answer of our own, shaped like the SDK's. */
function refuse(
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * Serve MCP over Streamable HTTP at `/mcp` on 127.0.0.1. Each client session gets its own McpServer from the
 * factory; all of them share the episode (its executor serialises their calls). Guards, in order: the bearer token
 * (401, and the connection is closed), the session cap for a new session (503), then the SDK transport's
 * DNS-rebinding protection on the Host and Origin headers (403). A session in which no request has started or ended
 * for `sessionIdleSeconds` is closed, its McpServer and any request still open with it (told to `log`): a stalled
 * request cannot keep its session, and the session's slot, forever.
 *
 * Connections: at most `maxConnections`; a connection counts as unauthenticated until a request on it carries the
 * token, and beyond `maxUnauthenticatedConnections` of those the oldest is closed, so sockets that never send a
 * request (or never the token) cannot hold the server's file descriptors or lock a client with the token out.
 * A connection must send its headers within `headersTimeoutSeconds` and a whole request within
 * `requestTimeoutSeconds`; an idle keep-alive connection is closed after 5 s.
 */
export async function serveHttp(
  createServer: () => McpServer,
  input: z.input<typeof McpHttpServeOptions> = {},
  log: (line: string) => void = () => undefined,
): Promise<HttpMcpEndpoint> {
  const options = McpHttpServeOptions.parse(input);
  const token = options.token ?? newBearerToken();
  const tokenDigest = digest(token);
  const idleMs = options.sessionIdleSeconds * 1000;
  const sessions = new Map<string, Session>();
  let opening = 0;
  let allowedHosts: string[] = [];
  let allowedOrigins: string[] = [];

  const authorized = (req: http.IncomingMessage) => {
    const match = /^Bearer ([\x21-\x7e]+)$/.exec(req.headers.authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), tokenDigest);
  };
  const release = async (session: Session, why?: string) => {
    clearTimeout(session.idleTimer);
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    if (why) log(`MCP session ${session.id} closed: ${why}`);
    for (const res of session.inFlight) res.destroy();
    await session.server.close().catch(() => undefined);
  };
  const expire = (session: Session) => {
    const stalled = session.inFlight.size;
    const why = `idle for ${options.sessionIdleSeconds} s`;
    void release(session, stalled ? `${why} (${stalled} request${stalled > 1 ? 's' : ''} stalled)` : why);
  };
  /** Restart the session's idle clock: every request's start and end does, stalled ones included. */
  const armIdle = (session: Session) => {
    clearTimeout(session.idleTimer);
    session.idleTimer = setTimeout(() => expire(session), idleMs);
    session.idleTimer.unref();
  };
  const answered = (session: Session, res: http.ServerResponse) => {
    session.inFlight.delete(res);
    if (sessions.get(session.id) === session) armIdle(session);
  };
  /** Count a request against the session's idle clock; the GET event stream stays open, so it only resets the clock. */
  const track = (session: Session, req: http.IncomingMessage, res: http.ServerResponse) => {
    armIdle(session);
    if (req.method === 'GET') return;
    session.inFlight.add(res);
    res.once('close', () => answered(session, res));
  };
  const unauthenticated = new Set<Socket>();

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!authorized(req)) {
      const message = req.headers.authorization
        ? 'unauthorized: wrong bearer token'
        : 'unauthorized: this MCP server needs the header `Authorization: Bearer <token>` (the token `finalstate tasks serve-mcp` wrote to its token file)';
      return refuse(res, 401, -32001, message, {
        'www-authenticate': 'Bearer realm="finalstate-mcp"',
        connection: 'close',
      });
    }
    unauthenticated.delete(req.socket);
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp')
      return refuse(res, 404, -32601, 'not found; the MCP endpoint is /mcp');
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId !== undefined) {
      const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (!session)
        return refuse(
          res,
          404,
          -32001,
          `unknown MCP session (closed, or expired after ${options.sessionIdleSeconds} s idle); initialize a new one`,
        );
      track(session, req, res);
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return refuse(res, 404, -32001, 'no MCP session: initialize one with a POST first');
    if (sessions.size + opening >= options.maxSessions) {
      return refuse(
        res,
        503,
        -32000,
        `too many MCP sessions: this server allows ${options.maxSessions} at once (--max-sessions); close one (DELETE /mcp) or wait until one has been idle for ${options.sessionIdleSeconds} s`,
        {
          'retry-after': String(Math.ceil(options.sessionIdleSeconds)),
        },
      );
    }
    opening++;
    const server = createServer();
    let session: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts,
      allowedOrigins,
      onsessioninitialized: (id) => {
        session = { id, server, transport, inFlight: new Set([res]) };
        sessions.set(id, session);
        armIdle(session);
      },
      onsessionclosed: (id) => {
        const closing = sessions.get(id);
        if (closing) void release(closing);
      },
    });
    res.once('close', () => session && answered(session, res));
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } finally {
      opening--;
      // refused by the transport (Host, Origin, not an initialize request): nothing of it stays
      if (!session) await server.close().catch(() => undefined);
    }
  };

  const httpServer = http.createServer(
    {
      headersTimeout: options.headersTimeoutSeconds * 1000,
      requestTimeout: options.requestTimeoutSeconds * 1000,
      // how often Node checks the two timeouts above (its default, 30 s, would let them overrun by that much)
      connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutSeconds * 1000),
    },
    (req, res) => {
      handle(req, res).catch((err: Error) => {
        if (!res.headersSent) refuse(res, 500, -32603, err.message);
      });
    },
  );
  httpServer.maxConnections = options.maxConnections;
  httpServer.keepAliveTimeout = 5_000;
  httpServer.on('connection', (socket: Socket) => {
    unauthenticated.add(socket);
    socket.once('close', () => unauthenticated.delete(socket));
    if (unauthenticated.size > options.maxUnauthenticatedConnections) {
      const oldest = unauthenticated.values().next().value!;
      unauthenticated.delete(oldest);
      oldest.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, ...options.allowedHosts];
  allowedOrigins = [`http://127.0.0.1:${port}`, `http://localhost:${port}`, ...options.allowedOrigins];
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    token,
    sessionCount: () => sessions.size,
    async close() {
      await Promise.all([...sessions.values()].map((s) => release(s)));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/**
 * Write a secret for a local client to a fresh file readable by its owner only. A token file left by an earlier run
 * is replaced; any other file already there (or a link) is refused, so a mistyped path destroys nothing.
 */
export function writeTokenFile(file: string, token: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const existing = fs.lstatSync(file, { throwIfNoEntry: false });
  if (existing) {
    const stale = existing.isFile() && existing.size <= 1024 && /^[\x21-\x7e]+\n$/.test(fs.readFileSync(file, 'utf8'));
    if (!stale)
      throw new UserError(`token file ${file}: something other than a token file is there; refusing to overwrite it`);
    fs.rmSync(file);
  }
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
}

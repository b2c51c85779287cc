import { z } from 'zod';
import { BearerToken } from './bearer-token.js';

/**
 * How `finalstate tasks serve-mcp --transport http` guards its endpoint. Every request needs the bearer token; the
 * Host and Origin headers must be the server's own address (127.0.0.1:<port>, localhost:<port>) or one listed here,
 * which is what stops a DNS-rebinding web page; sessions are capped and closed when idle; connections are capped,
 * those without the token more tightly, and must send their request in time.
 */
export const McpHttpServeOptions = z
  .object({
    port: z.number().int().min(0).max(65535).default(0).describe('TCP port on 127.0.0.1; 0 picks a free one.'),
    token: BearerToken.optional().describe(
      'Bearer token clients must send (env FINALSTATE_MCP_TOKEN); 32 random bytes, base64url, when absent.',
    ),
    allowedHosts: z
      .array(z.string().regex(/^[^\s/]+$/, 'a Host header value such as proxy.local:8080'))
      .default([])
      .describe('Host header values accepted besides 127.0.0.1:<port> and localhost:<port>.'),
    allowedOrigins: z
      .array(
        z
          .string()
          .regex(/^https?:\/\/[^\s/]+$/, 'an origin such as http://localhost:3000 (scheme, host, port; no path)'),
      )
      .default([])
      .describe(
        'Origin header values accepted besides http://127.0.0.1:<port> and http://localhost:<port>; requests without Origin (non-browser clients) pass.',
      ),
    maxSessions: z
      .number()
      .int()
      .min(1)
      .max(1024)
      .default(8)
      .describe('MCP sessions open at once; one more is answered 503.'),
    sessionIdleSeconds: z
      .number()
      .positive()
      .max(86_400)
      .default(300)
      .describe(
        'A session without a request starting or ending for this long is closed, together with any request of it still open (a stalled one).',
      ),
    headersTimeoutSeconds: z
      .number()
      .positive()
      .max(3_600)
      .default(10)
      .describe(
        "A connection that has not sent a request's headers within this long is closed (Node's headersTimeout).",
      ),
    requestTimeoutSeconds: z
      .number()
      .positive()
      .max(3_600)
      .default(30)
      .describe("A request not received in full within this long is answered 408 and closed (Node's requestTimeout)."),
    maxConnections: z
      .number()
      .int()
      .min(2)
      .max(65_536)
      .default(64)
      .describe('TCP connections open at once; more are closed as they arrive.'),
    maxUnauthenticatedConnections: z
      .number()
      .int()
      .min(1)
      .max(1_024)
      .default(16)
      .describe(
        'Connections not yet proven by a request with the token; beyond this many, the oldest is closed, so a flood of idle sockets cannot lock a client with the token out.',
      ),
  })
  .strict()
  .refine((o) => o.headersTimeoutSeconds <= o.requestTimeoutSeconds, {
    message: 'headersTimeoutSeconds must not exceed requestTimeoutSeconds',
    path: ['headersTimeoutSeconds'],
  })
  .refine((o) => o.maxUnauthenticatedConnections < o.maxConnections, {
    message: 'maxUnauthenticatedConnections must be below maxConnections',
    path: ['maxUnauthenticatedConnections'],
  });
export type McpHttpServeOptions = z.infer<typeof McpHttpServeOptions>;

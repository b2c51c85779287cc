import { z } from 'zod';

/**
 * How `finalstate tasks serve-mcp --transport http` guards its endpoint. Every request needs the bearer token; the
 * Host and Origin headers must be the server's own address (127.0.0.1:<port>, localhost:<port>) or one listed here,
 * which is what stops a DNS-rebinding web page; sessions are capped and closed when idle.
 */
export const McpHttpServeOptions = z
  .object({
    port: z.number().int().min(0).max(65535).default(0).describe('TCP port on 127.0.0.1; 0 picks a free one.'),
    token: z
      .string()
      .min(16, 'a bearer token needs at least 16 characters')
      .regex(/^[\x21-\x7e]+$/, 'a bearer token is printable ASCII without spaces')
      .optional()
      .describe('Bearer token clients must send (env FINALSTATE_MCP_TOKEN); 32 random bytes, base64url, when absent.'),
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
      .describe('A session without a request for this long is closed.'),
  })
  .strict();
export type McpHttpServeOptions = z.infer<typeof McpHttpServeOptions>;

import { UserError } from '../core/errors.js';
import { McpHttpServeOptions } from '../schemas/mcp-http.js';

/** The guard flags an HTTP server of the CLI takes (`tasks serve-mcp --transport http`, `env serve --openenv`). */
export interface HttpGuardFlags {
  port?: string;
  'allowed-host'?: string[];
  'allowed-origin'?: string[];
  'max-sessions'?: string;
  'session-idle-seconds'?: string;
}

/** The guard flags as parseArgs options. */
export const httpGuardFlags = {
  port: { type: 'string', default: '0' },
  'token-file': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'max-sessions': { type: 'string' },
  'session-idle-seconds': { type: 'string' },
} as const;

/**
 * The HTTP guard options from flags and the token variable `tokenEnv`, checked by their schema (McpHttpServeOptions);
 * an error names the command and the flag.
 */
export function httpServeOptions(command: string, values: HttpGuardFlags, tokenEnv: string): McpHttpServeOptions {
  const flagOf: Record<string, string> = {
    port: '--port',
    token: tokenEnv,
    allowedHosts: '--allowed-host',
    allowedOrigins: '--allowed-origin',
    maxSessions: '--max-sessions',
    sessionIdleSeconds: '--session-idle-seconds',
  };
  const number = (v: string | undefined) => (v === undefined ? undefined : v.trim() === '' ? NaN : Number(v));
  const parsed = McpHttpServeOptions.safeParse({
    port: number(values.port),
    ...(process.env[tokenEnv] ? { token: process.env[tokenEnv] } : {}),
    allowedHosts: values['allowed-host'] ?? [],
    allowedOrigins: values['allowed-origin'] ?? [],
    ...(values['max-sessions'] !== undefined ? { maxSessions: number(values['max-sessions']) } : {}),
    ...(values['session-idle-seconds'] !== undefined
      ? { sessionIdleSeconds: number(values['session-idle-seconds']) }
      : {}),
  });
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new UserError(
      `finalstate ${command}: ${flagOf[String(issue!.path[0])] ?? String(issue!.path[0])}: ${issue!.message}`,
    );
  }
  return parsed.data;
}

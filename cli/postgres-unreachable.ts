import type { LoadedConfig } from '../schemas/config.js';

/** Where the configured PostgreSQL server is, and which setting says so; never the password. */
interface Target {
  host: string;
  port: number;
  database: string;
  user: string;
  /** The setting to fix: the variable or key the address came from. */
  setting: string;
}

function targetOf(config: LoadedConfig): Target {
  const { postgres } = config;
  if (postgres.url) {
    const url = new URL(postgres.url);
    const fromEnv = config.sources['postgres.url']?.replace(/^env /, '');
    return {
      host: decodeURIComponent(url.hostname) || url.searchParams.get('host') || 'localhost',
      port: Number(url.port || 5432),
      database: decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username),
      user: decodeURIComponent(url.username),
      setting: fromEnv ?? 'postgres.url in the configuration file',
    };
  }
  return {
    host: postgres.host,
    port: postgres.port,
    database: postgres.database,
    user: postgres.user,
    setting: 'postgres.host, postgres.port, postgres.user and postgres.password (FINALSTATE_PG_*)',
  };
}

type Fault = { code?: unknown; severity?: unknown; syscall?: unknown; hostname?: unknown; port?: unknown };

/** The error and its causes (an AggregateError's errors too: Node tries each address of a host name). */
function* chain(err: unknown, depth = 0): Generator<Error & Fault> {
  if (!(err instanceof Error) || depth > 8) return;
  yield err;
  if (err instanceof AggregateError) for (const e of err.errors) yield* chain(e, depth + 1);
  yield* chain(err.cause, depth + 1);
}

/** What went wrong in reaching the server, in words, with what to check; undefined when `e` is not about reaching it. */
function diagnose(e: Error & Fault, target: Target): string | undefined {
  const code = typeof e.code === 'string' ? e.code : '';
  const check = target.setting;
  // Errors PostgreSQL sent back (pg's DatabaseError carries a severity and the SQLSTATE).
  if (typeof e.severity === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    const user = /for user "([^"]*)"/.exec(e.message)?.[1];
    if (code.startsWith('28') && (user === undefined || user === target.user))
      return `it refused the credentials of user "${target.user}" (${code}: ${e.message}); check the user and password in ${check}`;
    if (code === '3D000') return `it has no database "${target.database}"; create it, or check the name in ${check}`;
    if (code === '53300') return `it accepts no connection now (${code}: ${e.message}); try again once it does`;
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03')
      return `it ended the connection (${code}: ${e.message}); check that the server is running`;
    return undefined;
  }
  // The socket: attributed to this server by its address, so that another service's outage is not blamed on it.
  if (e.syscall === 'getaddrinfo' && e.hostname === target.host)
    return code === 'EAI_AGAIN'
      ? `the host name "${target.host}" could not be looked up (EAI_AGAIN: no DNS answer); check the host in ${check} and the name server`
      : `the host name "${target.host}" does not resolve (${code}); check the host in ${check}`;
  if (e.syscall === 'connect' && Number(e.port) === target.port) {
    if (code === 'ECONNREFUSED')
      return `nothing accepts connections there (ECONNREFUSED); is the server running, and are the host and port in ${check} its own?`;
    return `it cannot be reached (${code}); check the host and port in ${check}, and the network between`;
  }
  // pg's own wording for a connection the server never completed or dropped.
  if (/^Connection terminated unexpectedly$|^Connection terminated due to connection timeout$/.test(e.message))
    return `it ended the connection before answering; check that ${check} names a running PostgreSQL server`;
  if (/^SASL: /.test(e.message))
    return `it asked for a password that was not given (${e.message}); check the user and password in ${check}`;
  return undefined;
}

/**
 * When `err` (or one of its causes) says that the configured PostgreSQL server cannot be reached or refused us: one
 * line naming its address (never the password) and what to check. Every command's error passes through here
 * (cli/main.ts), so none prints pg's stack trace instead; undefined for every other error.
 */
export function postgresUnreachable(err: unknown, config: LoadedConfig | undefined): string | undefined {
  if (!config) return undefined;
  const target = targetOf(config);
  for (const e of chain(err)) {
    const why = diagnose(e, target);
    if (why) return `finalstate: PostgreSQL at ${target.host}:${target.port} (database ${target.database}): ${why}`;
  }
  return undefined;
}

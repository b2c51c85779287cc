import { spawn } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import { InfrastructureError, UserError } from '../core/errors.js';
import { fromRoot } from '../core/paths.js';

export interface OpenEnvServerOptions {
  /** The episode host (runtime/openenv/host-server.ts) and its per-run secret. */
  hostUrl: string;
  hostSecret: string;
  /** The bearer token clients send. */
  token: string;
  bind: string;
  port: number;
  maxSessions: number;
  sessionIdleSeconds: number;
  maxConnections: number;
  headersTimeoutSeconds: number;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

export interface OpenEnvServer {
  url: string;
  /** Resolves with the exit code once the process has ended, whoever ended it. */
  exited: Promise<number | null>;
  /** Stop it (its stdin closes, then SIGTERM, then SIGKILL) and wait until it has exited. */
  stop(): Promise<void>;
}

/** The venv infra/setup-openenv.sh installs OpenEnv into. */
export const OPENENV_PYTHON = fromRoot('.venv-openenv', 'bin', 'python');

/**
 * Start `python -m finalstate_openenv` (OpenEnv's own server in front of the episode host) in .venv-openenv, and wait
 * for the line with its URL. The secrets go in its environment, not its command line. It exits when its stdin closes,
 * so it never outlives this process, even one that is killed; `exited` tells this process when it has ended.
 */
export async function startOpenEnvServer(
  options: OpenEnvServerOptions,
  log: (line: string) => void,
): Promise<OpenEnvServer> {
  if (!fs.existsSync(OPENENV_PYTHON))
    throw new UserError(`OpenEnv's venv is missing (${OPENENV_PYTHON}): run npm run setup (infra/setup-openenv.sh)`);
  const args = [
    '-m',
    'finalstate_openenv',
    '--host-url',
    options.hostUrl,
    '--bind',
    options.bind,
    '--port',
    String(options.port),
    '--max-sessions',
    String(options.maxSessions),
    '--session-idle-seconds',
    String(options.sessionIdleSeconds),
    '--max-connections',
    String(options.maxConnections),
    '--headers-timeout-seconds',
    String(options.headersTimeoutSeconds),
    ...options.allowedHosts.flatMap((h) => ['--allowed-host', h]),
    ...options.allowedOrigins.flatMap((o) => ['--allowed-origin', o]),
  ];
  const child = spawn(OPENENV_PYTHON, args, {
    env: {
      ...process.env,
      PYTHONPATH: fromRoot('python'),
      PYTHONUNBUFFERED: '1',
      FINALSTATE_OPENENV_TOKEN: options.token,
      FINALSTATE_OPENENV_HOST_SECRET: options.hostSecret,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderrTail = '';
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    stderrTail = `${stderrTail}${line}\n`.slice(-4000);
    log(line);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdin.on('error', () => undefined); // it may be gone before we close its stdin
  const url = await new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as { url?: unknown };
        if (typeof parsed.url === 'string') return resolve(parsed.url);
      } catch {
        // not the ready line
      }
      log(line);
    });
    child.once('error', (err) => reject(new InfrastructureError(`OpenEnv server: ${err.message}`, 'openenv')));
    void exited.then((code) =>
      reject(
        new InfrastructureError(
          `OpenEnv server exited (code ${code}) before it listened:\n${stderrTail.trim() || '(no output)'}`,
          'openenv',
        ),
      ),
    );
  });
  let stopping: Promise<void> | undefined;
  return {
    url,
    exited,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.stdin.end();
        const gone = (ms: number) =>
          Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
        if (await gone(10_000)) return;
        child.kill('SIGTERM');
        if (await gone(5_000)) return;
        child.kill('SIGKILL');
        await exited;
      })();
      return stopping;
    },
  };
}

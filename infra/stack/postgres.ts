import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { LoadedConfig } from '../../schemas/config.js';
import { connectionConfig, databaseAddress } from '../../environment/connection.js';
import { scramVerifier } from '../../environment/episode-credentials.js';
import { EPISODE_GROUP_ROLE } from '../../environment/naming.js';
import { literal } from '../../environment/sql.js';
import { makeSuperuserPassword, superuserPasswordFile } from '../../environment/superuser-password.js';
import { InfrastructureError, UserError } from '../../core/errors.js';
import { run } from './process.js';

/** The one address the local cluster listens on (postgresql.conf, at initdb) and admits connections from. */
const LISTEN_ADDRESS = '127.0.0.1';

/** Written into postgresql.conf at initdb: loopback only. */
const LOCAL_SETTINGS: Record<string, string> = {
  listen_addresses: `'${LISTEN_ADDRESS}'`,
};

/** The superuser password of clusters made before the password was random; `dev up` replaces it. */
const LEGACY_PASSWORD = 'finalstate';

const SQLSTATE_INVALID_PASSWORD = '28P01';

/**
 * Passed on every start (so existing clusters get them too): many short-lived episode databases. No replication, so
 * minimal WAL; a bounded WAL size, since every episode database copy is written through the WAL.
 */
const RUNTIME_SETTINGS: Record<string, string> = {
  max_connections: '300',
  shared_buffers: '256MB',
  synchronous_commit: 'off',
  wal_level: 'minimal',
  max_wal_senders: '0',
  max_wal_size: '1GB',
  log_min_messages: 'warning',
};

/**
 * `postgres.durable` false (the default): no fsync and no full-page images. Episode databases are scratch, and each
 * DROP DATABASE forces a checkpoint whose fsyncs dominated provisioning; a PostgreSQL crash still loses nothing
 * (the OS has the writes), a machine crash may corrupt the cluster.
 */
export function durabilitySettings(config: LoadedConfig): Record<string, string> {
  return config.postgres.durable ? { fsync: 'on', full_page_writes: 'on' } : { fsync: 'off', full_page_writes: 'off' };
}

export function isManaged(config: LoadedConfig): boolean {
  return !config.postgres.url;
}

interface LocalCluster {
  bin: string;
  dataDir: string;
  logFile: string;
}

function findBinDir(): string {
  const fromPath = (process.env.PATH ?? '').split(':').find((dir) => dir && fs.existsSync(path.join(dir, 'initdb')));
  if (fromPath) return fs.realpathSync(path.dirname(fs.realpathSync(path.join(fromPath, 'initdb'))));
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
    : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0]) return path.join(base, versions[0], 'bin');
  throw new UserError(
    'postgres: no PostgreSQL server binaries (initdb, pg_ctl) found; run `npm run setup` (installs them with apt-get) or set DATABASE_URL',
  );
}

/** A program of the PostgreSQL installation the local cluster runs on (psql, pg_ctl, ...). */
export function serverBinary(name: string): string {
  return path.join(findBinDir(), name);
}

function cluster(config: LoadedConfig): LocalCluster {
  return {
    bin: findBinDir(),
    dataDir: path.join(config.dataPath, 'pg'),
    logFile: path.join(config.dataPath, 'logs', 'postgres.log'),
  };
}

/** PostgreSQL refuses to run as root, so as root we run its binaries as the `postgres` system user. */
function asServerUser(bin: string, args: string[]): { command: string; args: string[] } {
  if (process.getuid?.() !== 0) return { command: bin, args };
  return { command: 'runuser', args: ['-u', 'postgres', '--', bin, ...args] };
}

function chownToServerUser(target: string): void {
  if (process.getuid?.() !== 0) return;
  const res = run('chown', ['-R', 'postgres:postgres', target]);
  if (res.status !== 0) throw new InfrastructureError(`postgres: chown ${target} failed: ${res.stderr}`, 'postgres');
}

function pgCtl(c: LocalCluster, args: string[]) {
  const cmd = asServerUser(path.join(c.bin, 'pg_ctl'), ['-D', c.dataDir, ...args]);
  return run(cmd.command, cmd.args);
}

function initCluster(config: LoadedConfig, c: LocalCluster): void {
  fs.mkdirSync(path.dirname(c.dataDir), { recursive: true });
  fs.mkdirSync(c.dataDir, { mode: 0o700 });
  fs.mkdirSync(path.dirname(c.logFile), { recursive: true });
  const pwDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-pw-'));
  const pwFile = path.join(pwDir, 'pw');
  fs.writeFileSync(pwFile, `${config.postgres.password ?? makeSuperuserPassword(config.dataPath)}\n`, { mode: 0o600 });
  try {
    chownToServerUser(c.dataDir);
    chownToServerUser(pwDir);
    const cmd = asServerUser(path.join(c.bin, 'initdb'), [
      '-D',
      c.dataDir,
      '-U',
      config.postgres.user,
      `--pwfile=${pwFile}`,
      '--auth-host=scram-sha-256',
      '--auth-local=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    const res = run(cmd.command, cmd.args);
    if (res.status !== 0)
      throw new InfrastructureError(`postgres: initdb failed:\n${res.stderr || res.stdout}`, 'postgres');
  } finally {
    fs.rmSync(pwDir, { recursive: true, force: true });
  }
  const settings = { ...LOCAL_SETTINGS, unix_socket_directories: `'${c.dataDir}'` };
  const conf = Object.entries(settings)
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n');
  fs.appendFileSync(path.join(c.dataDir, 'postgresql.conf'), `\n# finalstate local cluster\n${conf}\n`);
}

/**
 * Who may connect to the local cluster, written at every start: the project's roles only (its superuser and the
 * members of the episode group), over TCP from the address it listens on, with SCRAM. No `local` line (the unix
 * socket, in the 0700 data directory, admits nobody), no `trust`, no other role.
 */
export function hbaConf(config: LoadedConfig): string {
  const user = config.postgres.user;
  if (/["\s,]/.test(user))
    throw new UserError(`config: postgres.user ${JSON.stringify(user)} must not hold quotes, commas or spaces`);
  const address = `${LISTEN_ADDRESS}/32`;
  return [
    '# finalstate local cluster: written by `finalstate dev up` at every start (edits are overwritten)',
    `host all "${user}" ${address} scram-sha-256`,
    `host all +${EPISODE_GROUP_ROLE} ${address} scram-sha-256`,
    '',
  ].join('\n');
}

/** Write pg_hba.conf when it differs; returns whether it changed. */
function writeHba(config: LoadedConfig, c: LocalCluster): boolean {
  const file = path.join(c.dataDir, 'pg_hba.conf');
  const wanted = hbaConf(config);
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === wanted) return false;
  fs.writeFileSync(file, wanted, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  chownToServerUser(file);
  return true;
}

/**
 * Make sure the superuser logs in with the password the project reads (unless one is configured: that is the
 * operator's). A cluster made before the password was random still has the old default: it gets the stack's own now.
 * The new password reaches the server only as a SCRAM verifier.
 */
async function migrateSuperuserPassword(config: LoadedConfig): Promise<void> {
  if (config.postgres.password !== undefined) return;
  const password = makeSuperuserPassword(config.dataPath);
  const attempt = async (with_: string) => {
    const client = new pg.Client({
      ...connectionConfig(config, 'postgres'),
      password: with_,
      connectionTimeoutMillis: 5000,
    });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  try {
    await (await attempt(password)).end();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== SQLSTATE_INVALID_PASSWORD) throw connectError(config, err);
  }
  let legacy: pg.Client;
  try {
    legacy = await attempt(LEGACY_PASSWORD);
  } catch (err) {
    throw new InfrastructureError(
      `postgres: the local cluster at ${databaseAddress(config)} refuses both the password in ${superuserPasswordFile(config.dataPath)} and the old default: set postgres.password (FINALSTATE_PG_PASSWORD) to its superuser's password (${(err as Error).message})`,
      'postgres',
      { cause: err },
    );
  }
  try {
    await legacy.query(`ALTER ROLE CURRENT_USER PASSWORD ${literal(scramVerifier(password, 4096))}`);
  } finally {
    await legacy.end().catch(() => undefined);
  }
}

function connectError(config: LoadedConfig, err: unknown): InfrastructureError {
  return new InfrastructureError(
    `postgres: cannot connect to ${databaseAddress(config)}: ${(err as Error).message}`,
    'postgres',
    { cause: err },
  );
}

export function clusterRunning(config: LoadedConfig): boolean {
  const c = cluster(config);
  if (!fs.existsSync(path.join(c.dataDir, 'PG_VERSION'))) return false;
  return pgCtl(c, ['status']).status === 0;
}

/**
 * Create (first time) and start the local cluster, with its access rules (pg_hba.conf) and superuser password as
 * this version wants them, an older cluster's included. Idempotent.
 */
export async function startLocal(config: LoadedConfig): Promise<'started' | 'running'> {
  const result = await startCluster(config);
  await migrateSuperuserPassword(config);
  return result;
}

async function startCluster(config: LoadedConfig): Promise<'started' | 'running'> {
  const c = cluster(config);
  if (!fs.existsSync(path.join(c.dataDir, 'PG_VERSION'))) initCluster(config, c);
  fs.mkdirSync(path.dirname(c.logFile), { recursive: true });
  // the server log quotes failing statements: readable by the server and us only (pg_ctl keeps an existing file's mode)
  if (!fs.existsSync(c.logFile)) fs.writeFileSync(c.logFile, '', { mode: 0o600 });
  fs.chmodSync(c.logFile, 0o600);
  fs.chmodSync(c.dataDir, 0o700); // also where the unix socket is
  const hbaChanged = writeHba(config, c);
  if (pgCtl(c, ['status']).status === 0) {
    if (hbaChanged) {
      const res = pgCtl(c, ['reload']);
      if (res.status !== 0) throw new InfrastructureError(`postgres: pg_ctl reload failed: ${res.stderr}`, 'postgres');
    }
    return 'running';
  }
  chownToServerUser(c.logFile);
  const options = [
    `-p ${config.postgres.port}`,
    ...Object.entries({ ...RUNTIME_SETTINGS, ...durabilitySettings(config) }).map(([k, v]) => `-c ${k}=${v}`),
  ].join(' ');
  const res = pgCtl(c, ['-l', c.logFile, '-w', '-t', '60', '-o', options, 'start']);
  if (res.status !== 0) {
    const tail = fs.existsSync(c.logFile) ? fs.readFileSync(c.logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
    throw new InfrastructureError(
      `postgres: pg_ctl start failed on port ${config.postgres.port}:\n${res.stderr}\n${tail}`,
      'postgres',
    );
  }
  return 'started';
}

/** `mode` 'immediate' stops like a crash (no shutdown checkpoint; the next start recovers from the WAL). */
export async function stopLocal(config: LoadedConfig, mode: 'fast' | 'immediate' = 'fast'): Promise<boolean> {
  const c = cluster(config);
  if (!fs.existsSync(path.join(c.dataDir, 'PG_VERSION'))) return false;
  if (pgCtl(c, ['status']).status !== 0) return false;
  const res = pgCtl(c, ['-m', mode, '-w', '-t', '60', 'stop']);
  if (res.status !== 0) throw new InfrastructureError(`postgres: pg_ctl stop failed: ${res.stderr}`, 'postgres');
  return true;
}

export async function withClient<T>(
  config: LoadedConfig,
  database: string | undefined,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ ...connectionConfig(config, database), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    throw connectError(config, err);
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Make sure the control database exists (created through the maintenance database). */
export async function ensureControlDatabase(config: LoadedConfig): Promise<void> {
  if (config.postgres.url) return; // a managed server's database is the operator's to create
  const name = config.postgres.database;
  await withClient(config, 'postgres', async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    // The cluster runs with synchronous_commit off (episode databases are scratch, and their WAL order keeps each one
    // consistent). The control database is the record: a result row or episode record acknowledged and then lost to
    // a crash would be an episode Temporal saw complete and the records never hold.
    await client.query(`ALTER DATABASE ${pg.escapeIdentifier(name)} SET synchronous_commit = on`);
  });
}

export async function postgresHealthy(config: LoadedConfig): Promise<boolean> {
  try {
    await withClient(config, undefined, async (client) => client.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}

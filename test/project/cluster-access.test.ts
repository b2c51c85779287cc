import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../workers/config.js';
import { ensureControlDatabase, hbaConf, startLocal, stopLocal, withClient } from '../../infra/stack/postgres.js';
import { superuserPasswordFile } from '../../environment/superuser-password.js';
import { freePort } from '../helpers/index.js';

// A private cluster (own data dir and port), made as the old version made it, then brought up by this one.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-access-'));
fs.chmodSync(tmp, 0o755); // the PostgreSQL server user must reach its data dir below
const env: Record<string, string> = { DATABASE_URL: '', FINALSTATE_DATA_DIR: path.join(tmp, 'data') };
let config = loadConfig({ env: { ...process.env, ...env } });

after(async () => {
  await stopLocal(config).catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** pg_hba.conf as initdb wrote it for the old version: every role, on the socket and on both loopback addresses. */
const OLD_HBA = `local   all             all                                     scram-sha-256
host    all             all             127.0.0.1/32            scram-sha-256
host    all             all             ::1/128                 scram-sha-256
local   replication     all                                     scram-sha-256
host    replication     all             127.0.0.1/32            scram-sha-256
host    replication     all             ::1/128                 scram-sha-256
`;

async function login(password: string): Promise<string> {
  const client = new pg.Client({
    host: config.postgres.host,
    port: config.postgres.port,
    user: config.postgres.user,
    database: 'postgres',
    password,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return 'logged in';
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

test('dev up gives a cluster made with the old default password a random one, and admits only the project roles', async () => {
  env.FINALSTATE_PG_PORT = String(await freePort());
  // the old version: the superuser password `finalstate`, and initdb's pg_hba.conf
  const old = loadConfig({ env: { ...process.env, ...env, FINALSTATE_PG_PASSWORD: 'finalstate' } });
  config = old;
  await startLocal(old);
  await stopLocal(old);
  fs.writeFileSync(path.join(old.dataPath, 'pg', 'pg_hba.conf'), OLD_HBA);
  assert.equal(fs.existsSync(superuserPasswordFile(old.dataPath)), false);

  config = loadConfig({ env: { ...process.env, ...env } });
  assert.equal(config.postgres.password, undefined, 'no password configured: the stack makes its own');
  assert.equal(await startLocal(config), 'started');
  await ensureControlDatabase(config);

  const file = superuserPasswordFile(config.dataPath);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the password file is readable by its owner only');
  assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
  const password = fs.readFileSync(file, 'utf8').trim();
  assert.match(password, /^[0-9a-f]{64}$/);
  assert.match(await login('finalstate'), /password authentication failed/, 'the old default no longer logs in');
  assert.equal(await login(password), 'logged in');
  // every process of the project finds it through the config: the control database, as a worker would open it
  assert.equal(await withClient(config, undefined, async (c) => (await c.query('SELECT 1 AS one')).rows[0].one), 1);

  const hba = fs.readFileSync(path.join(config.dataPath, 'pg', 'pg_hba.conf'), 'utf8');
  assert.equal(hba, hbaConf(config));
  const rules = hba.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  assert.deepEqual(
    rules.map((l) => l.split(/\s+/)),
    [
      ['host', 'all', `"${config.postgres.user}"`, '127.0.0.1/32', 'scram-sha-256'],
      ['host', 'all', '+fs_episode_agents', '127.0.0.1/32', 'scram-sha-256'],
    ],
    'TCP from the loopback address only, the project roles only, SCRAM only: no socket, no trust',
  );
  assert.equal(fs.statSync(path.join(config.dataPath, 'pg')).mode & 0o777, 0o700, 'the socket directory is private');

  // the next dev up finds it all in place
  assert.equal(await startLocal(config), 'running');
  assert.equal(await login(password), 'logged in');
});

test('without a password file or a configured password, a connection names the file and what to do', async () => {
  const bare = loadConfig({ env: { ...process.env, DATABASE_URL: '', FINALSTATE_DATA_DIR: path.join(tmp, 'none') } });
  await assert.rejects(
    withClient(bare, undefined, async () => undefined),
    /postgres-password does not exist; run `finalstate dev up`.*postgres\.password \(FINALSTATE_PG_PASSWORD\)/,
  );
});

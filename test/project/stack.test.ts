import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as thinkingbox from '../../infra/stack/thinkingbox.js';
import { loadConfig } from '../../workers/config.js';
import { withClient } from '../../infra/stack/postgres.js';
import { superuserPasswordFile } from '../../environment/superuser-password.js';
import { run } from '../../infra/stack/process.js';
import { temporalBinary } from '../../infra/stack/temporal.js';
import { connectClient } from '../../workers/temporal-client.js';
import { smokeWorkflow } from '../../workflows/smoke.js';
import { startControlWorker } from '../../workers/control.js';
import { freePort, runCli, uniqueName } from '../helpers/index.js';

// A second, private stack (own data dir and ports), so the lifecycle can be exercised without disturbing the
// shared stack that the other tests use.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-stack-'));
fs.chmodSync(tmp, 0o755); // the PostgreSQL server user must reach its data dir below
const env: Record<string, string> = {};
let brought = false;

interface StatusJson {
  components: { name: string; healthy: boolean; address: string }[];
}

function status(): { code: number; json: StatusJson } {
  const res = runCli(['dev', 'status', '--json'], env);
  return { code: res.status, json: JSON.parse(res.stdout) as StatusJson };
}

after(() => {
  if (brought) runCli(['dev', 'down'], env);
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('dev up, status, down and up again keep workflow history; down stops only what up started', async () => {
  const [pgPort, temporalPort, uiPort, proxyPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  Object.assign(env, {
    FINALSTATE_THINKINGBOX_PORT: String(proxyPort),
    FINALSTATE_DATA_DIR: path.join(tmp, 'data'),
    FINALSTATE_PG_PORT: String(pgPort),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    // Both spellings: the caller's environment may set either (FINALSTATE_ wins), and this stack must be private.
    FINALSTATE_TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    FINALSTATE_TEMPORAL_UI_PORT: String(uiPort),
  });
  const config = loadConfig({ env: { ...process.env, ...env } });
  // ThinkingBox's session proxy, where one is configured (THINKINGBOX_HOME and its venv): this stack's own as well
  const tb = thinkingbox.isConfigured(config);
  const sharedBefore = runCli(['dev', 'status', '--json']).status;

  assert.equal(status().code, 1, 'nothing runs on the private ports yet');

  const up = runCli(['dev', 'up', '--json'], env);
  brought = true;
  assert.equal(up.status, 0, up.stderr);
  assert.deepEqual(
    (JSON.parse(up.stdout) as { components: { name: string; action: string }[] }).components.map((c) => c.action),
    ['started', 'started', ...(tb ? ['started'] : [])],
  );
  const healthy = status();
  assert.equal(healthy.code, 0);
  assert.deepEqual(
    healthy.json.components.map((c) => [c.name, c.healthy]),
    [['postgres', true], ['temporal', true], ['temporal-ui', true], ...(tb ? [['thinkingbox', true]] : [])],
  );
  assert.ok(healthy.json.components.every((c) => typeof c.address === 'string' && c.address.length > 0));
  // the superuser's password is the stack's own, random, readable by its owner only; the old default does not log in
  const passwordFile = superuserPasswordFile(config.dataPath);
  assert.equal(fs.statSync(passwordFile).mode & 0o777, 0o600);
  assert.notEqual(fs.readFileSync(passwordFile, 'utf8').trim(), 'finalstate');
  await assert.rejects(
    withClient(
      { ...config, postgres: { ...config.postgres, password: 'finalstate' } },
      undefined,
      async () => undefined,
    ),
    /password authentication failed/,
  );
  // WAL (DEV_SERVER_SQLITE_PRAGMAS): under the rollback journal the dev server's fsyncs set the pace of episodes.
  assert.ok(fs.existsSync(path.join(config.dataPath, 'temporal', 'temporal.db-wal')), 'the dev server keeps a WAL');

  const again = runCli(['dev', 'up', '--json'], env);
  assert.deepEqual(
    (JSON.parse(again.stdout) as { components: { action: string }[] }).components.map((c) => c.action),
    ['running', 'running', ...(tb ? ['running'] : [])],
    'up is idempotent',
  );

  const describe = run(temporalBinary(config), [
    'operator',
    'namespace',
    'describe',
    '--namespace',
    'default',
    '--address',
    config.temporal.address,
  ]);
  assert.match(describe.stdout, /720h/, 'retention is 30 days');
  const attributes = run(temporalBinary(config), [
    'operator',
    'search-attribute',
    'list',
    '--address',
    config.temporal.address,
  ]).stdout;
  for (const name of ['CampaignId', 'Step', 'TaskId', 'Domain', 'Split']) assert.match(attributes, new RegExp(name));

  const workflowId = uniqueName('persisted');
  const taskQueue = uniqueName('stack-test');
  const worker = await startControlWorker(config, { taskQueue });
  try {
    const client = await connectClient(config);
    await client.workflow.execute(smokeWorkflow, { taskQueue, workflowId, args: [{ label: 'survives restarts' }] });
    await client.connection.close();
  } finally {
    await worker.stop();
  }

  const down = runCli(['dev', 'down', '--json'], env);
  assert.deepEqual((JSON.parse(down.stdout) as { stopped: string[] }).stopped.sort(), [
    'postgres',
    'temporal',
    ...(tb ? ['thinkingbox'] : []),
  ]);
  const stopped = status();
  assert.equal(stopped.code, 1, 'status exits non-zero when something is unhealthy');
  assert.ok(stopped.json.components.every((c) => !c.healthy));
  assert.equal(runCli(['dev', 'status', '--json']).status, sharedBefore, 'the shared stack was not touched');

  assert.equal(runCli(['dev', 'up'], env).status, 0);
  const list = run(temporalBinary(config), [
    'workflow',
    'list',
    '--address',
    config.temporal.address,
    '--query',
    `WorkflowId = '${workflowId}'`,
  ]);
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, new RegExp(workflowId), 'workflow history survived dev down + dev up');
  assert.match(list.stdout, /Completed/);
});

test('a wrong configuration value is a clear CLI error naming the key', () => {
  const res = runCli(['dev', 'status'], { FINALSTATE_TEMPORAL_UI_PORT: '70000' });
  assert.equal(res.status, 2);
  assert.match(res.stderr, /temporal\.uiPort/);
  assert.match(res.stderr, /FINALSTATE_TEMPORAL_UI_PORT/);
  assert.doesNotMatch(res.stderr, /at .*\.js:\d+/, 'no stack trace for a user error');
});

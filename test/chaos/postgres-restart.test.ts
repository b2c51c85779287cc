import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { ensureControlDatabase, startLocal, stopLocal, withClient } from '../../infra/stack/postgres.js';
import { connectClient } from '../../workers/temporal-client.js';
import { smokeWorkflow } from '../../workflows/smoke.js';
import { freePort, startProcess, uniqueName } from '../helpers/index.js';
import { sharedWorkflowBundle } from '../../testkit/pipeline/bundle.js';

// What the chaos suite's PostgreSQL restart found, each on a PRIVATE cluster (own data dir, free port) so the shared
// one is never stopped: the control worker process died of an unhandled 'error' event when the cluster went away
// under its pool's idle connections, and the control database acknowledged commits that a crash then lost (the
// cluster runs with synchronous_commit off).
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const shared = loadConfig();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-pg-restart-'));
fs.chmodSync(dir, 0o755); // the PostgreSQL server user must reach its data dir below
let privateConfig: LoadedConfig;
let env: Record<string, string>;
let client: Client;
const queue = uniqueName('pg-restart-control');

before(async () => {
  env = { DATABASE_URL: '', FINALSTATE_DATA_DIR: path.join(dir, 'data'), FINALSTATE_PG_PORT: String(await freePort()) };
  privateConfig = loadConfig({ env: { ...process.env, ...env } });
  await startLocal(privateConfig);
  await ensureControlDatabase(privateConfig);
  await sharedWorkflowBundle(); // built before the worker process starts, so its start is quick
  client = await connectClient(shared);
});

after(async () => {
  await client?.connection.close();
  await stopLocal(privateConfig).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the control database commits durably although the cluster runs with synchronous_commit off', async () => {
  const setting = await withClient(
    privateConfig,
    undefined,
    async (c) => (await c.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit,
  );
  assert.equal(setting, 'on', 'control database');
  const episodeSide = await withClient(
    privateConfig,
    'postgres',
    async (c) => (await c.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit,
  );
  assert.equal(episodeSide, 'off', 'other databases keep the fast setting');
});

test('a control worker process survives a PostgreSQL crash-restart under its idle connections, and serves the next workflow', async () => {
  // Real time, not the time-skipping test server: a real PostgreSQL crash-restart under a worker is the point.
  const worker = startProcess(
    process.execPath,
    [fileURLToPath(new URL('./control-worker.js', import.meta.url)), queue],
    /chaos control worker ready/,
    { ...env, FINALSTATE_TEMPORAL_ADDRESS: shared.temporal.address },
  );
  try {
    await worker.started;
    // The migrations left idle clients in the worker's pool; the crash ends their sessions.
    await stopLocal(privateConfig, 'immediate');
    await startLocal(privateConfig);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(worker.child.exitCode, null, `the worker exited:\n${worker.output().slice(-1500)}`);
    assert.equal(worker.child.signalCode, null);
    const result = await client.workflow.execute(smokeWorkflow, {
      taskQueue: queue,
      workflowId: uniqueName('pg-restart-smoke'),
      args: [{ label: 'after the restart' }],
    });
    assert.equal(result.readBack, 'after the restart');
  } finally {
    await worker.stop();
  }
});

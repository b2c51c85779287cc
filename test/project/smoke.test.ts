import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../workers/config.js';
import { fromRoot } from '../../core/paths.js';
import { connectionConfig } from '../../environment/connection.js';
import { connectClient } from '../../workers/temporal-client.js';
import { crossLanguageSmokeWorkflow, smokeWorkflow } from '../../workflows/smoke.js';
import { startControlWorker } from '../../workers/control.js';
import type { RunningWorker } from '../../workers/temporal-worker.js';
import { startProcess, uniqueName } from '../helpers/index.js';

const config = loadConfig();
const taskQueue = uniqueName('smoke-ts');
let worker: RunningWorker;
const pool = new pg.Pool(connectionConfig(config));
const createdRows: number[] = [];

before(async () => {
  worker = await startControlWorker(config, { taskQueue });
});

after(async () => {
  await worker.stop();
  if (createdRows.length) await pool.query('DELETE FROM smoke_rows WHERE id = ANY($1::bigint[])', [createdRows]);
  await pool.end();
});

test('a workflow started through the client writes and reads a PostgreSQL row via its activity', async () => {
  const client = await connectClient(config);
  const label = uniqueName('row');
  const result = await client.workflow.execute(smokeWorkflow, {
    taskQueue,
    workflowId: uniqueName('smoke'),
    args: [{ label }],
  });
  createdRows.push(result.id);
  assert.equal(result.readBack, label);
  const row = await pool.query('SELECT label FROM smoke_rows WHERE id = $1', [result.id]);
  assert.equal(row.rows[0]?.label, label, 'the row is really in PostgreSQL');
  await client.connection.close();
});

test('a TypeScript workflow calls an activity served by a Python worker on another task queue', async () => {
  const pythonTaskQueue = uniqueName('smoke-py');
  const python = startProcess(
    fromRoot(config.python.venv, 'bin', 'python'),
    [
      '-m',
      'finalstate.smoke_worker',
      '--address',
      config.temporal.address,
      '--namespace',
      config.temporal.namespace,
      '--task-queue',
      pythonTaskQueue,
    ],
    /ready: polling/,
    { PYTHONPATH: fromRoot('python') },
  );
  try {
    await python.started;
    const client = await connectClient(config);
    const text = `cross-language ${uniqueName('x')}`;
    const result = await client.workflow.execute(crossLanguageSmokeWorkflow, {
      taskQueue,
      workflowId: uniqueName('xlang'),
      args: [{ text, pythonTaskQueue }],
    });
    assert.equal(result.text, text);
    assert.equal(
      result.sha256,
      createHash('sha256').update(text).digest('hex'),
      'hash computed by the Python activity',
    );
    assert.match(result.python, /^3\.\d+/);
    await client.connection.close();
  } finally {
    await python.stop();
  }
});

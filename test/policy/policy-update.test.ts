import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../../workers/config.js';
import { checkHfCheckpoint } from '../../storage/hf-checkpoint.js';
import { fromRoot } from '../../core/paths.js';
import { PolicyUpdateResult, TrainingEpisode, type PolicyUpdateInput } from '../../schemas/training.js';
import { writeTrainingBatch } from '../../storage/training-batch.js';
import { policyUpdateSmokeWorkflow } from '../../workflows/policy-update-smoke.js';
import { startProcess, uniqueName } from '../helpers/index.js';

const config = loadConfig();
const python = fromRoot(config.python.venv, 'bin', 'python');
const pythonEnv = { ...process.env, PYTHONPATH: fromRoot('python') };
const gpuTaskQueue = uniqueName('policy-gpu');
const workflowTaskQueue = uniqueName('policy-wf');
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-policy-'));

let stopPythonWorker: () => Promise<void> = async () => undefined;
let client: Client;
let connection: Connection;
let workerConnection: NativeConnection;
let worker: Worker;
let workerRun: Promise<void>;
let modelDir: string;
let vocabSize: number;

/** Two groups of two episodes: a 4-token prompt, then 3 to 5 trained tokens with made-up rollout logprobs. */
function smallBatch(): TrainingEpisode[] {
  const episodes = [0, 1, 2, 3].map((i) => {
    const prompt = [5, 6, 7, 8];
    const completion = Array.from({ length: 3 + (i % 3) }, (_, k) => (20 + 7 * i + k) % vocabSize);
    return {
      episodeId: `ep-${i}`,
      taskId: `task-${i >> 1}`,
      groupId: `group-${i >> 1}`,
      tokenIds: [...prompt, ...completion],
      lossMask: [...prompt.map(() => 0), ...completion.map(() => 1)],
      rolloutLogprobs: [...prompt.map(() => 0), ...completion.map((_, k) => -5.5 - 0.1 * k)],
      rolloutVersions: [...prompt.map(() => -1), ...completion.map(() => 0)],
      reward: i % 2,
    };
  });
  return episodes.map((e) => TrainingEpisode.parse(e));
}

const writeBatch = (name: string, episodes: TrainingEpisode[]) => writeTrainingBatch(workDir, name, episodes);

function update(step: number, batchFile: string): PolicyUpdateInput {
  return {
    campaignId: 'policy-smoke',
    step,
    batchUri: `file://${batchFile}`,
    checkpointDir: path.join(workDir, 'checkpoints'),
    baseModel: modelDir,
    optimizer: { lr: 1e-3 },
    microBatchSize: 2,
  };
}

before(async () => {
  const built = spawnSync(python, ['-m', 'finalstate.testing.tiny_model', path.join(workDir, 'base-model')], {
    env: pythonEnv,
    encoding: 'utf8',
  });
  assert.equal(built.status, 0, built.stderr);
  ({ dir: modelDir, vocabSize } = JSON.parse(built.stdout.trim().split('\n').pop() ?? '{}') as {
    dir: string;
    vocabSize: number;
  });

  const gpuWorker = startProcess(
    python,
    [
      '-m',
      'finalstate.gpu_worker',
      '--task-queue',
      gpuTaskQueue,
      '--address',
      config.temporal.address,
      '--namespace',
      config.temporal.namespace,
      '--device',
      'cpu',
    ],
    new RegExp(`gpu worker ready on task queue ${gpuTaskQueue}`),
    pythonEnv,
  );
  await gpuWorker.started;
  stopPythonWorker = async () => {
    assert.equal(await gpuWorker.stop(), 0, `the gpu worker shuts down cleanly on SIGTERM:\n${gpuWorker.output()}`);
  };

  connection = await Connection.connect({ address: config.temporal.address });
  client = new Client({ connection, namespace: config.temporal.namespace });
  workerConnection = await NativeConnection.connect({ address: config.temporal.address });
  worker = await Worker.create({
    connection: workerConnection,
    namespace: config.temporal.namespace,
    taskQueue: workflowTaskQueue,
    workflowsPath: fromRoot('dist', 'workflows', 'policy-update-smoke.js'),
  });
  workerRun = worker.run();
});

after(async () => {
  worker?.shutdown();
  await workerRun;
  await workerConnection?.close();
  await connection?.close();
  await stopPythonWorker();
  fs.rmSync(workDir, { recursive: true, force: true });
});

function runUpdate(request: PolicyUpdateInput) {
  return client.workflow.execute(policyUpdateSmokeWorkflow, {
    taskQueue: workflowTaskQueue,
    workflowId: uniqueName('policy-update'),
    args: [{ gpuTaskQueue, update: request }],
  });
}

test('a TypeScript workflow runs policyUpdate on the Python GPU worker and gets a complete checkpoint', async () => {
  const batchFile = await writeBatch('batch', smallBatch());
  const result = PolicyUpdateResult.parse(await runUpdate(update(1, batchFile)));
  assert.equal(result.step, 1);
  assert.equal(result.reused, false);
  const checkpoint = new URL(result.checkpointUri).pathname;
  for (const file of ['COMPLETE', 'model.safetensors', 'config.json', 'sharded/.metadata', 'tokenizer.json']) {
    assert.ok(fs.existsSync(path.join(checkpoint, file)), `${file} in ${checkpoint}`);
  }
  const checked = await checkHfCheckpoint(checkpoint, modelDir);
  assert.deepEqual(
    checked.files,
    ['model.safetensors'],
    "the publisher finds the export complete, with the base model's tensors",
  );
  for (const [name, value] of Object.entries(result.metrics)) assert.ok(Number.isFinite(value), `${name} = ${value}`);
  assert.equal(result.metrics.tokens, 3 + 4 + 5 + 3);
  assert.equal(result.metrics.optimizerSteps, 1, 'without miniBatchGroups the whole batch is one step');
  assert.ok(result.metrics.gradNorm > 0);

  const again = PolicyUpdateResult.parse(await runUpdate(update(1, batchFile)));
  assert.equal(again.reused, true, 'a repeated step returns the stored checkpoint');
  assert.equal(again.checkpointUri, result.checkpointUri);
});

test('an unusable batch fails the workflow at once with a non-retryable error', async () => {
  const empty = smallBatch().map((e) => ({
    ...e,
    lossMask: e.lossMask.map(() => 0),
    rolloutLogprobs: e.rolloutLogprobs.map(() => 0),
  }));
  const err = await runUpdate(update(2, await writeBatch('empty', empty))).catch((e: unknown) => e);
  assert.ok(err instanceof WorkflowFailedError, String(err));
  const activityFailure = err.cause;
  assert.ok(activityFailure instanceof ActivityFailure);
  const cause = activityFailure.cause;
  assert.ok(cause instanceof ApplicationFailure);
  assert.equal(cause.type, 'UnusableBatch');
  assert.equal(cause.nonRetryable, true);
  assert.match(cause.message, /loss mask is empty/);
});

test('miniBatchGroups from the TypeScript side makes one AdamW step per mini-batch of whole groups', async () => {
  const batch = smallBatch(); // two groups
  const result = PolicyUpdateResult.parse(
    await runUpdate({ ...update(2, await writeBatch('mini', batch)), miniBatchGroups: 1 }),
  );
  assert.equal(result.reused, false);
  assert.equal(result.metrics.optimizerSteps, 2);
  assert.equal(result.metrics.tokens, 3 + 4 + 5 + 3);
});

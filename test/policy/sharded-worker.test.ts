import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { LoadedConfig } from '../../schemas/config.js';
import { fromRoot } from '../../core/paths.js';
import { writeTrainingBatch } from '../../storage/training-batch.js';
import { PolicyUpdateResult, type PolicyUpdateInput } from '../../schemas/training.js';
import { campaign } from '../../workflows/campaign/index.js';
import { policyUpdateSmokeWorkflow } from '../../workflows/policy-update-smoke.js';
import { uniqueName } from '../helpers/index.js';
import { startPipeline, task, type Pipeline } from '../../testkit/pipeline/harness.js';

// The real Python gpu worker at world size 2 (torchrun, gloo on the CPU) behind the real Temporal dev server: a rank
// SIGKILLed mid-update, a rank that hangs, torchrun stopping the ranks while a collective hangs, then a smoke
// campaign (episodes from the seeded random stand-in runner, so that the test costs seconds) whose two GRPO steps
// run on the sharded worker, and the whole worker lost mid-update of a campaign (agent and ranks SIGKILLed, a new
// worker started), which must end on the checkpoint of an uninterrupted run, bitwise.
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-sharded-'));
const COLLECTIVE_TIMEOUT_S = 20;
let p: Pipeline;
let modelDir: string;
let worker: ReturnType<typeof startTorchrunWorker>;

/** `torchrun --nproc-per-node 2 --max-restarts 3 -m finalstate.gpu_worker`: after a rank dies, torchrun restarts both. */
function startTorchrunWorker(config: LoadedConfig, taskQueue: string) {
  const python = fromRoot(config.python.venv, 'bin', 'python');
  // c10d rendezvous (--standalone on one node): each restart is a fresh rendezvous round with its own store keys; the
  // static rendezvous of --master-port hands a restarted rank its predecessor's stale gloo address.
  const args = ['-m', 'torch.distributed.run', '--standalone', '--nproc-per-node', '2', '--max-restarts', '3'];
  const workerArgs = [
    '-m',
    'finalstate.gpu_worker',
    '--task-queue',
    taskQueue,
    '--address',
    config.temporal.address,
    '--namespace',
    config.temporal.namespace,
    '--device',
    'cpu',
    '--collective-timeout-s',
    String(COLLECTIVE_TIMEOUT_S),
  ];
  const child = spawn(python, [...args, ...workerArgs], {
    env: { ...process.env, PYTHONPATH: fromRoot('python'), OMP_NUM_THREADS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  /** Resolves with the first match of `pattern` in the output after `from` characters. */
  const waitFor = (pattern: RegExp, from = 0, timeoutMs = 120_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`torchrun gpu worker: no ${pattern} after ${timeoutMs} ms:\n${output.slice(-4000)}`)),
        timeoutMs,
      );
      const check = () => {
        const match = output.slice(from).match(pattern);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        }
      };
      listeners.push(check);
      check();
    });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, waitFor, stop, output: () => output };
}

/** Many long episodes in micro-batches of one, so that the update runs for seconds and a rank can die inside it. */
function longBatch(vocabSize: number): Promise<string> {
  const episodes = Array.from({ length: 64 }, (_, i) => {
    const tokens = Array.from({ length: 256 }, (_, k) => (3 + i * 31 + k * 7) % vocabSize);
    return {
      episodeId: `ep-${i}`,
      taskId: `task-${i >> 2}`,
      groupId: `group-${i >> 2}`,
      tokenIds: tokens,
      lossMask: tokens.map((_, k) => (k < 16 ? 0 : 1)),
      rolloutLogprobs: tokens.map((_, k) => (k < 16 ? 0 : -5.5)),
      rolloutVersions: tokens.map((_, k) => (k < 16 ? -1 : 0)),
      reward: i % 2,
    };
  });
  return writeTrainingBatch(workDir, 'long-batch', episodes);
}

const workerReady = (w: typeof worker, taskQueue: string) =>
  w.waitFor(new RegExp(`gpu worker ready on task queue ${taskQueue} \\(rank 0/2`));

before(async () => {
  const python = fromRoot('.venv', 'bin', 'python');
  const built = spawnSync(python, ['-m', 'finalstate.testing.tiny_model', path.join(workDir, 'base-model')], {
    env: { ...process.env, PYTHONPATH: fromRoot('python') },
    encoding: 'utf8',
  });
  assert.equal(built.status, 0, built.stderr);
  modelDir = (JSON.parse(built.stdout.trim().split('\n').pop() ?? '{}') as { dir: string }).dir;
  p = await startPipeline([task('t-a', 0.5), task('t-b', 0.5), task('t-c', 0.5), task('e-1', 0.5, 'eval')], {}, 8, {
    startGpuWorker: async (config, taskQueue) => {
      worker = startTorchrunWorker(config, taskQueue);
      await workerReady(worker, taskQueue);
      // The test may replace the worker (a node lost whole): close stops whichever runs then.
      return { stop: () => worker.stop() };
    },
  });
});

after(async () => {
  await p?.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

test('a rank SIGKILLed mid-update fails the attempt with GpuRankFailure at once, and the retry on the restarted ranks completes', async () => {
  const request: PolicyUpdateInput = {
    campaignId: 'sharded-kill',
    step: 1,
    batchUri: `file://${await longBatch(300)}`,
    checkpointDir: path.join(workDir, 'kill-checkpoints'),
    baseModel: modelDir,
    optimizer: { lr: 1e-3 },
    microBatchSize: 1,
  };
  const from = worker.output().length;
  const started = Date.now();
  const handle = await p.client.workflow.start(policyUpdateSmokeWorkflow, {
    taskQueue: p.queues.control,
    workflowId: uniqueName('sharded-kill'),
    args: [{ gpuTaskQueue: p.queues.gpu, update: request }],
  });
  const [, pid] = await worker.waitFor(/rank 1 \(pid (\d+)\): training step 1/, from);
  process.kill(Number(pid), 'SIGKILL');
  const killedAt = Date.now();
  const result = PolicyUpdateResult.parse(await handle.result());
  const finished = Date.now();
  assert.equal(result.step, 1);
  assert.equal(result.reused, false);
  assert.ok(fs.existsSync(path.join(workDir, 'kill-checkpoints', 'step-000001', 'COMPLETE')));

  const history = await handle.fetchHistory();
  const startedEvent = history.events?.find(
    (e) => e.activityTaskStartedEventAttributes,
  )?.activityTaskStartedEventAttributes;
  assert.equal(startedEvent?.attempt, 2, 'the first attempt failed and the second completed');
  const lastFailure = startedEvent?.lastFailure;
  assert.equal(lastFailure?.applicationFailureInfo?.type, 'GpuRankFailure', JSON.stringify(lastFailure));
  assert.match(lastFailure?.message ?? '', /rank 0\/2/);
  // Failing did not wait for a heartbeat timeout (2 minutes) nor even the collective timeout: the peer's socket closed.
  assert.ok(finished - killedAt < 90_000, `the retry completed ${finished - killedAt} ms after the kill`);
  assert.ok(finished - started < 120_000);
});

/** Starts one policy update of the long batch and waits until both ranks train: their pids. */
async function updateInFlight(campaignId: string) {
  const request: PolicyUpdateInput = {
    campaignId,
    step: 1,
    batchUri: `file://${await longBatch(300)}`,
    checkpointDir: path.join(workDir, `${campaignId}-checkpoints`),
    baseModel: modelDir,
    optimizer: { lr: 1e-3 },
    microBatchSize: 1,
  };
  const from = worker.output().length;
  const handle = await p.client.workflow.start(policyUpdateSmokeWorkflow, {
    taskQueue: p.queues.control,
    workflowId: uniqueName(campaignId),
    args: [{ gpuTaskQueue: p.queues.gpu, update: request }],
  });
  const [, rank0] = await worker.waitFor(/rank 0 \(pid (\d+)\): training step 1/, from);
  const [, rank1] = await worker.waitFor(/rank 1 \(pid (\d+)\): training step 1/, from);
  return { handle, from, rank0: Number(rank0), rank1: Number(rank1), checkpointDir: request.checkpointDir };
}

/** The failure of the first attempt, which the completed second attempt carries. */
async function firstAttemptFailure(handle: Awaited<ReturnType<typeof updateInFlight>>['handle']) {
  const history = await handle.fetchHistory();
  const started = history.events?.find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes;
  assert.equal(started?.attempt, 2, 'the first attempt failed and the second completed');
  return started?.lastFailure;
}

test('a rank that hangs fails the update with GpuRankFailure at the collective timeout, and the retry completes', async () => {
  const update = await updateInFlight('sharded-hang');
  process.kill(update.rank1, 'SIGSTOP'); // alive, holding its sockets, answering nothing
  const stoppedAt = Date.now();
  await worker.waitFor(/stopped \(process group broken\)/, update.from);
  const failedAt = Date.now();
  process.kill(update.rank1, 'SIGCONT'); // so that torchrun's SIGTERM ends it now rather than after its grace period
  const result = PolicyUpdateResult.parse(await update.handle.result());
  assert.equal(result.step, 1);
  assert.ok(fs.existsSync(path.join(update.checkpointDir, 'step-000001', 'COMPLETE')));
  const failure = await firstAttemptFailure(update.handle);
  assert.equal(failure?.applicationFailureInfo?.type, 'GpuRankFailure', JSON.stringify(failure));
  // The bound: the collective timeout, and not much more (reporting and stopping take a few seconds).
  const waited = (failedAt - stoppedAt) / 1000;
  assert.ok(
    waited >= COLLECTIVE_TIMEOUT_S - 5 && waited <= COLLECTIVE_TIMEOUT_S + 20,
    `failed ${waited} s after the rank hung`,
  );
});

test('torchrun stopping the ranks fails an update whose collective hangs at once, not at the collective timeout', async () => {
  // Under NCCL a dead peer leaves the others' collective hanging until the timeout; torchrun's agent sees the exit
  // and sends SIGTERM to the other ranks. Here rank 1 is stopped (its collective hangs as NCCL's would) and rank 0
  // gets that SIGTERM.
  const update = await updateInFlight('sharded-sigterm');
  process.kill(update.rank1, 'SIGSTOP');
  process.kill(update.rank0, 'SIGTERM');
  const signalledAt = Date.now();
  await worker.waitFor(/stopped \(process group broken\)/, update.from);
  const failedAt = Date.now();
  process.kill(update.rank1, 'SIGCONT');
  const result = PolicyUpdateResult.parse(await update.handle.result());
  assert.equal(result.step, 1);
  const failure = await firstAttemptFailure(update.handle);
  assert.equal(failure?.applicationFailureInfo?.type, 'GpuRankFailure', JSON.stringify(failure));
  assert.match(failure?.message ?? '', /rank 0\/2 on cpu: SIGTERM: torchrun is stopping the ranks/);
  assert.ok(
    failedAt - signalledAt < (COLLECTIVE_TIMEOUT_S / 2) * 1000,
    `failed ${failedAt - signalledAt} ms after SIGTERM`,
  );
});

test('a smoke campaign runs its GRPO steps on the gpu worker at world size 2', async () => {
  const checkpointDir = path.join(workDir, 'campaign-checkpoints');
  const config = p.campaignConfig({
    steps: 2,
    groupsPerStep: 2,
    rolloutsPerGroup: 4,
    keepZeroVarianceGroups: true,
    update: { baseModel: modelDir, checkpointDir, optimizer: { lr: 1e-3 }, microBatchSize: 2 },
    evaluation: { everySteps: 5, k: 1, window: 8 },
  });
  const handle = await p.client.workflow.start(campaign, {
    taskQueue: p.queues.control,
    workflowId: config.campaignId,
    args: [{ config }],
  });
  await handle.result();
  for (const step of [1, 2]) {
    const dir = path.join(checkpointDir, `step-00000${step}`);
    assert.ok(fs.existsSync(path.join(dir, 'COMPLETE')), `${dir} is complete`);
    assert.ok(fs.existsSync(path.join(dir, 'model.safetensors')));
    const shards = fs.readdirSync(path.join(dir, 'sharded')).filter((f) => f.endsWith('.distcp'));
    assert.equal(shards.length, 2, `one shard file per rank in ${dir}/sharded: ${shards.join(', ')}`);
    const state = JSON.parse(fs.readFileSync(path.join(dir, 'trainer_state.json'), 'utf8')) as {
      campaignId: string;
      metrics: { tokens: number };
    };
    assert.equal(state.campaignId, config.campaignId);
    assert.ok(state.metrics.tokens > 0);
  }
  assert.match(worker.output(), /training step 2/);
});

interface CheckpointComparison {
  tensors: number;
  elements: number;
  values: number;
  optimizerTensors: number;
  differing: string[];
  onlyInA: string[];
  onlyInB: string[];
}

/** Every tensor of each pair of step checkpoints, bitwise: the export and the sharded fp32 model and AdamW state. */
function compareCheckpoints<const Pairs extends ReadonlyArray<readonly [string, string]>>(
  ...pairs: Pairs
): { [K in keyof Pairs]: CheckpointComparison } {
  const compared = spawnSync(
    fromRoot('.venv', 'bin', 'python'),
    ['-m', 'finalstate.testing.compare_checkpoints', ...pairs.flat()],
    { env: { ...process.env, PYTHONPATH: fromRoot('python') }, encoding: 'utf8' },
  );
  assert.equal(compared.status, 0, compared.stderr);
  return JSON.parse(compared.stdout.trim().split('\n').pop() ?? '[]') as {
    [K in keyof Pairs]: CheckpointComparison;
  };
}

test('the whole gpu worker SIGKILLed mid-update of a campaign: a new worker resumes it to the checkpoint of an uninterrupted run', async () => {
  // Real time on the dev server, not the time-skipping test server: a real SIGKILL of torchrun is the point.
  const runCampaign = async (name: string, killDuringStep?: number) => {
    const checkpointDir = path.join(workDir, `${name}-checkpoints`);
    const config = p.campaignConfig({
      steps: 2,
      groupsPerStep: 2,
      rolloutsPerGroup: 4,
      keepZeroVarianceGroups: true,
      // A lost rank 0 fails the attempt at the heartbeat timeout: short here, so that the retry comes in seconds.
      update: {
        baseModel: modelDir,
        checkpointDir,
        optimizer: { lr: 1e-3 },
        microBatchSize: 1,
        heartbeatTimeout: '8s',
      },
      evaluation: { everySteps: 5, k: 1, window: 8 },
    });
    const from = worker.output().length;
    const handle = await p.client.workflow.start(campaign, {
      taskQueue: p.queues.control,
      workflowId: config.campaignId,
      args: [{ config }],
    });
    if (killDuringStep !== undefined) {
      const [, rank0] = await worker.waitFor(
        new RegExp(`rank 0 \\(pid (\\d+)\\): training step ${killDuringStep}`),
        from,
      );
      const [, rank1] = await worker.waitFor(
        new RegExp(`rank 1 \\(pid (\\d+)\\): training step ${killDuringStep}`),
        from,
      );
      // The node is lost: torchrun's agent and both ranks at once, none of them told.
      for (const pid of [worker.child.pid!, Number(rank0), Number(rank1)]) process.kill(pid, 'SIGKILL');
      const stepDir = path.join(checkpointDir, `step-00000${killDuringStep}`);
      assert.ok(!fs.existsSync(stepDir), `the kill came before step ${killDuringStep}'s checkpoint was complete`);
      await new Promise((resolve) => worker.child.once('exit', resolve));
      worker = startTorchrunWorker(p.config, p.queues.gpu);
      await workerReady(worker, p.queues.gpu);
    }
    await handle.result();
    return checkpointDir;
  };
  const started = Date.now();
  const uninterrupted = await runCampaign('resume-reference');
  const killed = await runCampaign('resume-killed', 2);
  const elapsed = (Date.now() - started) / 1000;

  // The new worker had nothing in memory: it loaded step 1's sharded state from disk and trained step 2 again.
  assert.match(worker.output(), new RegExp(`loading policy from ${killed}/step-000001`));
  assert.match(worker.output(), /rank 0 \(pid \d+\): training step 2/);
  const step = (dir: string, n: number) => path.join(dir, `step-00000${n}`);
  const [step1, step2, apart] = compareCheckpoints(
    [step(uninterrupted, 1), step(killed, 1)],
    [step(uninterrupted, 2), step(killed, 2)],
    [step(killed, 1), step(killed, 2)],
  );
  for (const [n, same] of [
    [1, step1],
    [2, step2],
  ] as const) {
    assert.deepEqual(same.differing, [], `step ${n}: every tensor and value is equal`);
    assert.deepEqual([same.onlyInA, same.onlyInB], [[], []]);
    assert.ok(same.optimizerTensors > 0 && same.elements > 0, JSON.stringify(same));
  }
  // The comparison sees real tensors: one step apart, the weights and the AdamW moments differ.
  assert.ok(
    apart.differing.some((k) => k.startsWith('export.')),
    JSON.stringify(apart.differing),
  );
  assert.ok(
    apart.differing.some((k) => /^sharded\.optim\.state\..*exp_avg_sq$/.test(k)),
    JSON.stringify(apart.differing),
  );
  console.log(`reference and killed campaigns with the kill and restart: ${elapsed.toFixed(1)} s`);
});

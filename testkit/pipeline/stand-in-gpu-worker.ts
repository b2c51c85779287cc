import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from '@temporalio/worker';
import { readTrainingBatch } from '../../storage/training-batch.js';
import type { LoadedConfig } from '../../schemas/config.js';
import { connectWorker, runWorker } from '../../workers/temporal-worker.js';
import type { LogMetricsInput, LogMetricsResult } from '../../schemas/tracking.js';
import type { UpdateDescription } from '../../schemas/training.js';
import type { PolicyUpdateCall, PolicyUpdateReply } from '../../workflows/gpu.js';

type BatchFile = Awaited<ReturnType<typeof readTrainingBatch>>;

/** What python/finalstate/gpu_worker/describe.py says of the tiny test model on one CPU rank. */
export const TINY_MODEL_ON_ONE_CPU_RANK: UpdateDescription = {
  worker: {
    worldSize: 1,
    ranksPerNode: 1,
    device: 'cpu',
    deviceName: 'cpu',
    gpuMemoryBytes: null,
    hostMemoryBytes: 16 * 2 ** 30,
    collectiveTimeoutS: 600,
  },
  model: {
    modelType: 'qwen3',
    parameters: 93_312,
    embeddingParameters: 19_200,
    layers: 2,
    hidden: 64,
    intermediate: 128,
    attentionHeads: 4,
    kvHeads: 2,
    headDim: 16,
    vocabulary: 300,
    tiedEmbeddings: true,
  },
};
/** A model directory the publisher's completeness check accepts: a config and one safetensors tensor, `value`. */
export async function writeMinimalCheckpoint(dir: string, value: number): Promise<void> {
  const header = Buffer.from(JSON.stringify({ 'stand_in.weight': { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }));
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(header.length));
  const data = Buffer.alloc(4);
  data.writeFloatLE(value);
  await fs.writeFile(path.join(dir, 'model.safetensors'), Buffer.concat([prefix, header, data]));
  await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'stand-in' }));
}

/**
 * TEST-ONLY STAND-IN for the Python gpu worker (python/finalstate/gpu_worker): a TypeScript activity named
 * `policyUpdate` on its own task queue, so the pipeline's cross-queue call by name is exercised without a GPU. It
 * trains nothing: it reads the batch the pipeline wrote, computes group-normalised advantages and a policy-gradient
 * loss from the rollout logprobs, and writes a checkpoint directory holding that record, with weights: a copy of
 * `weightsFrom` (a model or LoRA adapter a real rollout server can load; a function: the directory for that update,
 * e.g. a damaged one for one step), else a one-tensor stand-in.
 */
export async function startStandInGpuWorker(
  config: LoadedConfig,
  taskQueue: string,
  weightsFrom?: string | ((input: PolicyUpdateCall) => string),
) {
  const described = { value: TINY_MODEL_ON_ONE_CPU_RANK };
  const calls: Array<{ input: PolicyUpdateCall; batch: BatchFile }> = [];
  const logged: LogMetricsInput[] = [];
  /** A test's hook, awaited before each update trains: it can hold an update until an event it waits for. */
  const hooks: { beforeUpdate?: (input: PolicyUpdateCall) => Promise<void> } = {};
  const connection = await connectWorker(config);
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue,
    activities: {
      // Stand-in for python/finalstate/tracking (tested in python/tests/test_tracking.py): records what it was sent.
      async logMetrics(input: LogMetricsInput): Promise<LogMetricsResult> {
        logged.push(input);
        return { scalars: Object.keys(input.scalars).length, tensorboardDir: null, wandbRunDir: null };
      },
      // Stand-in for python/finalstate/gpu_worker/describe.py: `described.value`, by default one CPU rank and the shape
      // of the tiny test model (python/finalstate/testing/tiny_model.py) whatever baseModel names, so that the memory
      // preflight passes; a test sets another to see it refused.
      async describeUpdate(): Promise<UpdateDescription> {
        return described.value;
      },
      async policyUpdate(input: PolicyUpdateCall): Promise<PolicyUpdateReply> {
        await hooks.beforeUpdate?.(input);
        const batch = await readTrainingBatch(input.batchUri);
        calls.push({ input, batch });
        const groups = new Map<string, number[]>();
        for (const e of batch.episodes) groups.set(e.groupId, [...(groups.get(e.groupId) ?? []), e.reward]);
        let loss = 0;
        let tokens = 0;
        for (const e of batch.episodes) {
          const rewards = groups.get(e.groupId)!;
          const mean = rewards.reduce((s, r) => s + r, 0) / rewards.length;
          const std = Math.sqrt(rewards.reduce((s, r) => s + (r - mean) ** 2, 0) / rewards.length);
          const advantage = (e.reward - mean) / (std + 1e-6);
          e.lossMask.forEach((m, i) => {
            if (m === 1) {
              loss -= advantage * e.rolloutLogprobs[i]!;
              tokens += 1;
            }
          });
        }
        const dir = path.join(input.checkpointDir, `step-${String(input.step).padStart(6, '0')}`);
        await fs.mkdir(dir, { recursive: true });
        const weights = typeof weightsFrom === 'function' ? weightsFrom(input) : weightsFrom;
        if (weights) await fs.cp(weights, dir, { recursive: true });
        else await writeMinimalCheckpoint(dir, loss / Math.max(tokens, 1));
        await fs.writeFile(
          path.join(dir, 'stand-in-checkpoint.json'),
          JSON.stringify({ batchUri: input.batchUri, episodes: batch.episodes.length }),
        );
        return {
          checkpointUri: pathToFileURL(dir).href,
          step: input.step,
          reused: false,
          metrics: {
            loss: loss / Math.max(tokens, 1),
            clipFraction: 0,
            tokens,
            gradNorm: 0,
            entropy: 0,
            approxKl: 0,
            tokensPerSecond: 0,
            optimizerSteps: 1,
          },
        };
      },
    },
  });
  return { ...runWorker(worker, () => connection.close()), calls, logged, described, hooks };
}

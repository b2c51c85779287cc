import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckpointRetention, type GpuWorkerInfo, type ModelShape } from '../schemas/training.js';
import { checkpointBytes, gb, planUpdateMemory, type UpdateMemory, type UpdateSettings } from './update-memory.js';

/**
 * The memory tables of docs/deploy.md, computed by infra/update-memory.ts (test/project/deploy.test.ts checks that the
 * doc holds exactly these). `node dist/infra/update-memory-table.js` prints them.
 */

/** A Qwen2-architecture model's shape from its config's widths (q/k/v biases, two RMSNorms per layer). */
export function qwen2Shape(
  name: string,
  c: {
    hidden: number;
    intermediate: number;
    layers: number;
    heads: number;
    kvHeads: number;
    vocabulary: number;
    tied: boolean;
  },
): ModelShape {
  const headDim = c.hidden / c.heads;
  const q = c.heads * headDim;
  const kv = c.kvHeads * headDim;
  const layer =
    c.hidden * q + q + 2 * (c.hidden * kv + kv) + q * c.hidden + 3 * c.hidden * c.intermediate + 2 * c.hidden;
  const embeddings = c.vocabulary * c.hidden * (c.tied ? 1 : 2);
  return {
    modelType: name,
    parameters: c.layers * layer + embeddings + c.hidden,
    embeddingParameters: embeddings,
    layers: c.layers,
    hidden: c.hidden,
    intermediate: c.intermediate,
    attentionHeads: c.heads,
    kvHeads: c.kvHeads,
    headDim,
    vocabulary: c.vocabulary,
    tiedEmbeddings: c.tied,
  };
}

/** Qwen2.5's published configs. */
export const REFERENCE_MODELS = {
  '1.5B': qwen2Shape('Qwen2.5-1.5B', {
    hidden: 1536,
    intermediate: 8960,
    layers: 28,
    heads: 12,
    kvHeads: 2,
    vocabulary: 151936,
    tied: true,
  }),
  '7B': qwen2Shape('Qwen2.5-7B', {
    hidden: 3584,
    intermediate: 18944,
    layers: 28,
    heads: 28,
    kvHeads: 4,
    vocabulary: 152064,
    tied: false,
  }),
  '14B': qwen2Shape('Qwen2.5-14B', {
    hidden: 5120,
    intermediate: 13824,
    layers: 48,
    heads: 40,
    kvHeads: 8,
    vocabulary: 152064,
    tied: false,
  }),
  '32B': qwen2Shape('Qwen2.5-32B', {
    hidden: 5120,
    intermediate: 27648,
    layers: 64,
    heads: 40,
    kvHeads: 8,
    vocabulary: 152064,
    tied: false,
  }),
} as const;

/** 80 GB GPUs (H100/A100 80GB), 8 per node with 1 TiB of host memory. */
export function h100s(gpus: number): GpuWorkerInfo {
  return {
    worldSize: gpus,
    ranksPerNode: Math.min(gpus, 8),
    device: 'cuda',
    deviceName: 'NVIDIA H100 80GB HBM3',
    gpuMemoryBytes: 80 * 2 ** 30,
    hostMemoryBytes: 2 ** 40,
    collectiveTimeoutS: 600,
  };
}

/** The defaults of schemas/training.ts and schemas/episode.ts (limits.maxContextTokens). */
export const DEFAULT_SETTINGS: UpdateSettings = {
  activationCheckpointing: 'auto',
  optimizerOffload: false,
  exportDtype: 'auto',
  microBatchTokens: 8192,
  microBatchSize: null,
  maxEpisodeTokens: 8192,
};

/** The defaults before micro-batches by tokens: 8 episodes a pass, activation checkpointing off. */
export const OLD_DEFAULT_SETTINGS: UpdateSettings = {
  ...DEFAULT_SETTINGS,
  activationCheckpointing: false,
  microBatchTokens: Number.MAX_SAFE_INTEGER,
  microBatchSize: 8,
};

export const TABLE_ROWS: Array<{ model: keyof typeof REFERENCE_MODELS; gpus: number; offload?: boolean }> = [
  { model: '1.5B', gpus: 1 },
  { model: '1.5B', gpus: 2 },
  { model: '7B', gpus: 2 },
  { model: '7B', gpus: 4 },
  { model: '7B', gpus: 8 },
  { model: '14B', gpus: 4 },
  { model: '14B', gpus: 8 },
  { model: '14B', gpus: 4, offload: true },
  { model: '32B', gpus: 8 },
  { model: '32B', gpus: 16 },
  { model: '32B', gpus: 8, offload: true },
];

const num = (bytes: number) => (bytes / 1e9).toFixed(1);

export function memoryTable(): string {
  const lines = [
    '| model | GPUs | offload | sharded state | embeddings + output layer | two layers | logits | activations | per GPU | fits | host per node |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of TABLE_ROWS) {
    const model = REFERENCE_MODELS[row.model];
    const plan: UpdateMemory = planUpdateMemory(model, h100s(row.gpus), {
      ...DEFAULT_SETTINGS,
      optimizerOffload: row.offload ?? false,
    });
    const g = plan.perGpu;
    lines.push(
      `| ${row.model} | ${row.gpus} | ${row.offload ? 'on' : 'off'} | ${num(g.shardedState)} | ${num(g.rootParameters)} | ` +
        `${num(g.layerParameters)} | ${num(g.logits)} | ${num(g.activations)} | ${num(g.total)} GB | ` +
        `${g.total <= g.usable! ? 'yes' : 'no'} | ${num(plan.perNode.total)} GB |`,
    );
  }
  return lines.join('\n');
}

export function checkpointTable(steps = 100, evaluateEvery = 5): string {
  const retention = CheckpointRetention.parse({});
  const lines = [
    `| model | each step writes | after ${steps} steps, default retention | after ${steps} steps, everything kept |`,
    '|---|---|---|---|',
  ];
  for (const [name, model] of Object.entries(REFERENCE_MODELS)) {
    const bytes = checkpointBytes(model.parameters, 2, retention, steps, evaluateEvery);
    lines.push(`| ${name} | ${gb(bytes.perStep)} | ${gb(bytes.retained)} | ${gb(bytes.unretained)} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`${memoryTable()}\n\n${checkpointTable()}`);
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckpointRetention, type GpuWorkerInfo, type ModelShape } from '../schemas/training.js';
import {
  checkpointBytes,
  fixesFor,
  gb,
  gpusNeeded,
  loraParameters,
  planUpdateMemory,
  type UpdateMemory,
  type UpdateSettings,
} from './update-memory.js';

/**
 * The memory tables of docs/deploy.md, computed by infra/update-memory.ts (test/project/deploy.test.ts checks that the
 * doc holds exactly these). `node dist/infra/update-memory-table.js` prints them.
 */

export interface DecoderWidths {
  hidden: number;
  intermediate: number;
  layers: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocabulary: number;
  tied: boolean;
  /** Qwen2: biases on the q, k and v projections. */
  qkvBias: boolean;
  /** Qwen3: RMSNorms on q and k, per head. */
  qkNorm: boolean;
}

/** The shape of a Qwen-style decoder (SwiGLU MLP, two RMSNorms per layer) from its config's widths. */
export function decoderShape(modelType: string, c: DecoderWidths): ModelShape {
  const q = c.heads * c.headDim;
  const kv = c.kvHeads * c.headDim;
  const h = c.hidden;
  const attention = h * q + 2 * h * kv + q * h + (c.qkvBias ? q + 2 * kv : 0) + (c.qkNorm ? 2 * c.headDim : 0);
  const layer = attention + 3 * h * c.intermediate + 2 * h;
  const embeddings = c.vocabulary * h * (c.tied ? 1 : 2);
  return {
    modelType,
    parameters: c.layers * layer + embeddings + h,
    embeddingParameters: embeddings,
    layers: c.layers,
    hidden: h,
    intermediate: c.intermediate,
    attentionHeads: c.heads,
    kvHeads: c.kvHeads,
    headDim: c.headDim,
    vocabulary: c.vocabulary,
    tiedEmbeddings: c.tied,
  };
}

const qwen25 = (c: Omit<DecoderWidths, 'headDim' | 'qkvBias' | 'qkNorm'>) =>
  decoderShape('qwen2', { ...c, headDim: c.hidden / c.heads, qkvBias: true, qkNorm: false });
const qwen3 = (c: Omit<DecoderWidths, 'qkvBias' | 'qkNorm'>) =>
  decoderShape('qwen3', { ...c, qkvBias: false, qkNorm: true });

/**
 * Qwen2.5's published configs; Qwen3-8B's; and the reference run's 27B-class model: Qwen3.5-27B's decoder widths
 * (64 layers, hidden 5,120, MLP 17,408, 24 query and 4 key/value heads of 256) with Qwen's 151,936-token
 * vocabulary, every layer counted as full attention, untied: 23.37B parameters by this arithmetic. (Qwen3.5-27B
 * itself has 27.8B: three in four of its layers are Gated DeltaNet, its vocabulary is 248k and it has a vision
 * tower; test/project/deploy.test.ts checks that the reference shape still fits at 27.8B.)
 */
export const REFERENCE_MODELS = {
  '1.5B': qwen25({
    hidden: 1536,
    intermediate: 8960,
    layers: 28,
    heads: 12,
    kvHeads: 2,
    vocabulary: 151936,
    tied: true,
  }),
  '7B': qwen25({
    hidden: 3584,
    intermediate: 18944,
    layers: 28,
    heads: 28,
    kvHeads: 4,
    vocabulary: 152064,
    tied: false,
  }),
  '14B': qwen25({
    hidden: 5120,
    intermediate: 13824,
    layers: 48,
    heads: 40,
    kvHeads: 8,
    vocabulary: 152064,
    tied: false,
  }),
  '32B': qwen25({
    hidden: 5120,
    intermediate: 27648,
    layers: 64,
    heads: 40,
    kvHeads: 8,
    vocabulary: 152064,
    tied: false,
  }),
  '8B': qwen3({
    hidden: 4096,
    intermediate: 12288,
    layers: 36,
    heads: 32,
    kvHeads: 8,
    headDim: 128,
    vocabulary: 151936,
    tied: false,
  }),
  '27B': qwen3({
    hidden: 5120,
    intermediate: 17408,
    layers: 64,
    heads: 24,
    kvHeads: 4,
    headDim: 256,
    vocabulary: 151936,
    tied: false,
  }),
} as const;

/**
 * The models of the LoRA table: Qwen3-8B and Qwen3-32B as published, and a dense 27B with Gemma 3 27B's text widths
 * (the size of docs/examples/cluster.json's model).
 */
export const LORA_MODELS = {
  '8B': REFERENCE_MODELS['8B'],
  '27B': decoderShape('gemma3_text', {
    hidden: 5376,
    intermediate: 21504,
    layers: 62,
    heads: 32,
    kvHeads: 16,
    headDim: 128,
    vocabulary: 262208,
    tied: true,
    qkvBias: false,
    qkNorm: true,
  }),
  '32B': qwen3({
    hidden: 5120,
    intermediate: 25600,
    layers: 64,
    heads: 64,
    kvHeads: 8,
    headDim: 128,
    vocabulary: 151936,
    tied: false,
  }),
} as const;

/** update.lora's default target modules: every linear layer of a decoder layer. */
export const ALL_LINEAR = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

/** 80 GB GPUs (H100/A100 80GB), 8 per node with 1 TiB of host memory (the reference run: 3 nodes, 24 GPUs). */
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
  packing: true,
  sequenceParallel: 1,
  replicateAcrossNodes: false,
};

/** The defaults before micro-batches by tokens: 8 episodes a pass, activation checkpointing off. */
export const OLD_DEFAULT_SETTINGS: UpdateSettings = {
  ...DEFAULT_SETTINGS,
  activationCheckpointing: false,
  microBatchTokens: Number.MAX_SAFE_INTEGER,
  microBatchSize: 8,
};

/**
 * The reference run's shape (issue 36): prompts of up to 26,624 tokens and responses of up to 106,496, a 27B-class
 * model on 3 nodes x 8 H100 80 GB, Ulysses sequence parallelism 4, parameter and optimizer offload.
 */
export const REFERENCE_RUN = {
  model: '27B',
  gpus: 24,
  settings: {
    ...DEFAULT_SETTINGS,
    maxEpisodeTokens: 26_624 + 106_496,
    sequenceParallel: 4,
    optimizerOffload: true,
  } satisfies UpdateSettings,
} as const;

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
    '| model | GPUs | offload | sharded state | embeddings + output layer | two layers | activations | layer backward | log-prob head | per GPU | fits | host per node |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
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
        `${num(g.layerParameters)} | ${num(g.activations)} | ${num(g.layerBackward)} | ${num(g.head)} | ${num(g.total)} GB | ` +
        `${g.total <= g.usable! ? 'yes' : 'no'} | ${num(plan.perNode.total)} GB |`,
    );
  }
  return lines.join('\n');
}

/**
 * Full fine-tuning against LoRA on all linear layers: what a step writes (resumable state and export, bf16) and the
 * memory per GPU on the fewest 80 GB GPUs LoRA fits on, beside the fewest full fine-tuning needs.
 */
export function loraTable(): string {
  const lines = [
    '| model | rank | adapter parameters | a step writes: LoRA | full | LoRA: GPUs, per GPU | full: per GPU on as many | full: GPUs needed |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const retention = CheckpointRetention.parse({});
  for (const [name, model] of Object.entries(LORA_MODELS)) {
    for (const rank of [16, 64]) {
      const lora = { rank, targetModules: ALL_LINEAR };
      const adapter = loraParameters(model, lora);
      const gpus = gpusNeeded(model, h100s(1), { ...DEFAULT_SETTINGS, lora })!;
      const withLora = planUpdateMemory(model, h100s(gpus), { ...DEFAULT_SETTINGS, lora }).perGpu;
      const full = planUpdateMemory(model, h100s(gpus), DEFAULT_SETTINGS).perGpu;
      const fullGpus = gpusNeeded(model, h100s(1), DEFAULT_SETTINGS);
      const written = (parameters: number) => checkpointBytes(parameters, 2, retention, 1, 1).perStep;
      lines.push(
        `| ${name} | ${rank} | ${(adapter / 1e6).toFixed(1)}M | ${(written(adapter) / 1e6).toFixed(0)} MB | ` +
          `${gb(written(model.parameters))} | ${gpus}, ${num(withLora.total)} GB | ${num(full.total)} GB | ${fullGpus} |`,
      );
    }
  }
  return lines.join('\n');
}

/** A row of the long-episode table: a model on some 80 GB GPUs, one episode limit, sequence parallelism and offload. */
export interface LongRow {
  model: keyof typeof REFERENCE_MODELS;
  gpus: number;
  tokens: number;
  sequenceParallel: number;
  offload: boolean;
}

/** 8B and 32B at 32k and 128k tokens an episode: the GPUs, sequence parallelism and offload that fit, and the reference run. */
export const LONG_ROWS: LongRow[] = [
  { model: '8B', gpus: 8, tokens: 32_768, sequenceParallel: 1, offload: false },
  { model: '8B', gpus: 8, tokens: 131_072, sequenceParallel: 1, offload: false },
  { model: '8B', gpus: 8, tokens: 131_072, sequenceParallel: 4, offload: false },
  { model: '32B', gpus: 16, tokens: 32_768, sequenceParallel: 1, offload: false },
  { model: '32B', gpus: 16, tokens: 32_768, sequenceParallel: 4, offload: false },
  { model: '32B', gpus: 16, tokens: 131_072, sequenceParallel: 4, offload: false },
  { model: '32B', gpus: 16, tokens: 131_072, sequenceParallel: 8, offload: true },
  { model: '27B', gpus: 24, tokens: 133_120, sequenceParallel: 1, offload: true },
  {
    model: REFERENCE_RUN.model,
    gpus: REFERENCE_RUN.gpus,
    tokens: REFERENCE_RUN.settings.maxEpisodeTokens,
    sequenceParallel: REFERENCE_RUN.settings.sequenceParallel,
    offload: REFERENCE_RUN.settings.optimizerOffload,
  },
];

export function longRowPlan(row: LongRow): UpdateMemory {
  return planUpdateMemory(REFERENCE_MODELS[row.model], h100s(row.gpus), longSettings(row));
}

/** The long-episode table of docs/deploy.md: each row's terms, and for one that does not fit the smallest fix. */
export function longEpisodeTable(): string {
  const lines = [
    '| model | GPUs | tokens an episode | sequence parallel | offload | tokens a pass per GPU | sharded state | embeddings + output layer | two layers | activations | layer backward | log-prob head | per GPU | fits | host per node |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of LONG_ROWS) {
    const plan = longRowPlan(row);
    const g = plan.perGpu;
    const fits =
      g.total <= g.usable!
        ? 'yes'
        : `no: ${fixesFor(REFERENCE_MODELS[row.model], h100s(row.gpus), longSettings(row))[0]}`;
    lines.push(
      `| ${row.model} | ${row.gpus} | ${row.tokens} | ${row.sequenceParallel} | ${row.offload ? 'on' : 'off'} | ${plan.passTokens} | ` +
        `${num(g.shardedState)} | ${num(g.rootParameters)} | ${num(g.layerParameters)} | ${num(g.activations)} | ` +
        `${num(g.layerBackward)} | ${num(g.head)} | ${num(g.total)} GB | ${fits} | ${num(plan.perNode.total)} GB |`,
    );
  }
  return lines.join('\n');
}

function longSettings(row: LongRow): UpdateSettings {
  return {
    ...DEFAULT_SETTINGS,
    maxEpisodeTokens: row.tokens,
    sequenceParallel: row.sequenceParallel,
    optimizerOffload: row.offload,
  };
}

export function checkpointTable(steps = 100, evaluateEvery = 5, every = 10): string {
  const retention = CheckpointRetention.parse({});
  const lines = [
    `| model | each step writes | after ${steps} steps, default retention | after ${steps} steps, everything kept | ` +
      `\`checkpoints.every: ${every}\`: a step writes on average | after ${steps} steps, default retention |`,
    '|---|---|---|---|---|---|',
  ];
  for (const name of ['1.5B', '7B', '14B', '32B'] as const) {
    const model = REFERENCE_MODELS[name];
    const bytes = checkpointBytes(model.parameters, 2, retention, steps, evaluateEvery);
    const cadence = checkpointBytes(model.parameters, 2, retention, steps, evaluateEvery, every);
    lines.push(
      `| ${name} | ${gb(bytes.perStep)} | ${gb(bytes.retained)} | ${gb(bytes.unretained)} | ` +
        `${gb(cadence.averagePerStep)} | ${gb(cadence.retained)} |`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`${memoryTable()}\n\n${longEpisodeTable()}\n\n${checkpointTable()}\n\n${loraTable()}`);
}

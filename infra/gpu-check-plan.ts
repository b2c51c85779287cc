import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromRoot } from '../core/paths.js';
import type { GpuWorkerInfo, ModelShape } from '../schemas/training.js';
import { ALL_LINEAR, decoderShape } from './update-memory-table.js';
import { planUpdateMemory, type UpdateSettings } from './update-memory.js';

/**
 * The plan of the GPU proof (infra/gpu-check.sh, python/benchmarks/gpu_check.py): the models it builds and the
 * preflight's predictions for them, written to python/benchmarks/gpu_check_plan.json so that the GPU machine (no
 * Node there) compares its measurements with the same arithmetic. `node dist/infra/gpu-check-plan.js` rewrites it;
 * test/project/gpu-check.test.ts checks it is current.
 */

export const PLAN_FILE = fromRoot('python', 'benchmarks', 'gpu_check_plan.json');

/** A Qwen3 config (transformers' Qwen3Config keyword arguments). */
export interface Qwen3Config {
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim: number;
  vocab_size: number;
  tie_word_embeddings: boolean;
}

/** Qwen3-1.7B's shape: 1.72B parameters, a 152k vocabulary, tied embeddings. */
export const QWEN3_1_7B: Qwen3Config = {
  hidden_size: 2048,
  intermediate_size: 6144,
  num_hidden_layers: 28,
  num_attention_heads: 16,
  num_key_value_heads: 8,
  head_dim: 128,
  vocab_size: 151936,
  tie_word_embeddings: true,
};

/** The CPU rehearsal's model (CI): the same architecture, small. */
export const QWEN3_TINY: Qwen3Config = {
  hidden_size: 64,
  intermediate_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 16,
  vocab_size: 512,
  tie_word_embeddings: true,
};

/** The shape of a Qwen3 model (no q/k/v biases; RMSNorms on q and k per head). */
export function qwen3Shape(c: Qwen3Config): ModelShape {
  return decoderShape('qwen3', {
    hidden: c.hidden_size,
    intermediate: c.intermediate_size,
    layers: c.num_hidden_layers,
    heads: c.num_attention_heads,
    kvHeads: c.num_key_value_heads,
    headDim: c.head_dim,
    vocabulary: c.vocab_size,
    tied: c.tie_word_embeddings,
    qkvBias: false,
    qkNorm: true,
  });
}

/** Peak device memory of loading (gpu_worker/loading.py): the fp32 shards, and the largest tensor in flight in the file's dtype. */
export function loadPeakBytes(model: ModelShape, gpus: number, fileBytesPerParameter: number): number {
  return (4 * model.parameters) / gpus + fileBytesPerParameter * model.vocabulary * model.hidden;
}

export interface UpdatePart {
  name: string;
  label: string;
  episodes: number;
  /** The longest episode. */
  tokensPerEpisode: number;
  /** Every episode's tokens. */
  lengths: number[];
  microBatchTokens: number;
  packing: boolean;
  sequenceParallel: number;
  optimizerOffload: boolean;
  /** Low enough that every step clips. */
  maxGradNorm: number;
  /** update.lora of the part (absent: full fine-tuning). */
  lora?: { rank: number; targetModules: string[] };
  steps: number;
  predictedPeakBytes: number | null;
}

export interface CheckPlan {
  generatedBy: string;
  config: Qwen3Config;
  parameters: number;
  worldSize: number;
  update: UpdatePart[];
  load: { label: string; fileDtype: 'bfloat16'; predictedPeakBytes: number | null };
}

/** One H200 (141 GB) or H100 (80 GB); the check's models are sized for either. */
const ONE_GPU: GpuWorkerInfo = {
  worldSize: 1,
  ranksPerNode: 1,
  device: 'cuda',
  deviceName: 'NVIDIA H100 80GB HBM3',
  gpuMemoryBytes: 80 * 2 ** 30,
  hostMemoryBytes: 2 ** 40,
  collectiveTimeoutS: 600,
};

/**
 * Episode lengths spread as real demo episodes are (bench/data/turn-profile.json: from a sixth of the longest to the
 * longest, most in between): `count` episodes up to `longest` tokens.
 */
export function spreadLengths(count: number, longest: number): number[] {
  return Array.from({ length: count }, (_, i) => Math.round(longest * (1 - (5 / 6) * (i / (count - 1)) ** 1.5)));
}

export function checkPlan(device: 'cuda' | 'cpu'): CheckPlan {
  const config = device === 'cuda' ? QWEN3_1_7B : QWEN3_TINY;
  const model = qwen3Shape(config);
  const worldSize = device === 'cuda' ? 1 : 2;
  const tokensPerEpisode = device === 'cuda' ? 4096 : 64;
  const microBatchTokens = 2 * tokensPerEpisode;
  const episodes = device === 'cuda' ? 16 : 4;
  const predict = (
    optimizerOffload: boolean,
    packing: boolean,
    sequenceParallel: number,
    lora?: UpdatePart['lora'],
  ) => {
    if (device === 'cpu') return null;
    const settings: UpdateSettings = {
      activationCheckpointing: 'auto',
      optimizerOffload,
      exportDtype: 'auto',
      microBatchTokens,
      microBatchSize: null,
      maxEpisodeTokens: tokensPerEpisode,
      packing,
      sequenceParallel,
      replicateAcrossNodes: false,
      ...(lora ? { lora } : {}),
    };
    return Math.round(planUpdateMemory(model, ONE_GPU, settings).perGpu.total);
  };
  const part = (
    name: string,
    label: string,
    optimizerOffload: boolean,
    maxGradNorm: number,
    layout: { lengths: number[]; packing: boolean; sequenceParallel: number } = {
      lengths: Array<number>(episodes).fill(tokensPerEpisode),
      packing: false,
      sequenceParallel: 1,
    },
    lora?: UpdatePart['lora'],
  ): UpdatePart => ({
    name,
    label,
    episodes: layout.lengths.length,
    tokensPerEpisode,
    lengths: layout.lengths,
    microBatchTokens,
    packing: layout.packing,
    sequenceParallel: layout.sequenceParallel,
    optimizerOffload,
    maxGradNorm,
    steps: device === 'cuda' ? 2 : 1,
    predictedPeakBytes: predict(optimizerOffload, layout.packing, layout.sequenceParallel, lora),
    ...(lora ? { lora } : {}),
  });
  // One GPU has no sequence-parallel peer; the CPU rehearsal's two ranks share each pass.
  const packed = { lengths: spreadLengths(3 * episodes, tokensPerEpisode), packing: true, sequenceParallel: worldSize };
  return {
    generatedBy: 'node dist/infra/gpu-check-plan.js (infra/gpu-check-plan.ts)',
    config,
    parameters: model.parameters,
    worldSize,
    update: [
      part('update', device === 'cuda' ? '(a) FSDP2 update, bf16, NCCL' : '(a) FSDP2 update, fp32, gloo', false, 1.0),
      part('offload', '(b) (a) with optimizer offload, clipped', true, 1e-3),
      part('lora', '(c) LoRA r16 on all linear layers, (a) otherwise', false, 1.0, undefined, {
        rank: 16,
        targetModules: ALL_LINEAR,
      }),
      part(
        'packed',
        device === 'cuda'
          ? '(d) packed passes of real-length episodes, chunked head, bf16'
          : '(d) packed passes of real-length episodes, chunked head, sequence parallel 2, gloo',
        false,
        1.0,
        packed,
      ),
    ],
    load: {
      label: '(e) sharded load',
      fileDtype: 'bfloat16',
      predictedPeakBytes: device === 'cuda' ? Math.round(loadPeakBytes(model, worldSize, 2)) : null,
    },
  };
}

export function planFileText(): string {
  return `${JSON.stringify({ cuda: checkPlan('cuda'), cpu: checkPlan('cpu') }, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(PLAN_FILE, planFileText());
  console.log(`wrote ${PLAN_FILE}`);
}

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UPDATE_MEMORY_MODEL } from '../core/update-memory-model.js';
import { fromRoot } from '../core/paths.js';
import { qwen3Shape, type Qwen3Config } from './gpu-check-plan.js';
import { chunkBytes, computeBytes, passBytes } from './update-memory.js';

/**
 * The plan of the CPU memory check (python/benchmarks/update_memory.py, python/tests/test_update_memory.py): one pass
 * of a small random Qwen3 on the CPU, padded or packed, through the chunked log-prob head or through the logits as
 * the trainer computed them before issue 36, and what infra/update-memory.ts predicts it holds. Written to
 * python/benchmarks/memory_check_plan.json (no Node on the Python side); `node dist/infra/memory-check-plan.js`
 * rewrites it and test/project/gpu-check.test.ts checks it is current.
 */

export const MEMORY_PLAN_FILE = fromRoot('python', 'benchmarks', 'memory_check_plan.json');

/** Small enough for the CPU at 32k tokens, with the widths in a real Qwen3's proportions. */
export const MEMORY_CHECK_MODEL: Qwen3Config = {
  hidden_size: 128,
  intermediate_size: 384,
  num_hidden_layers: 4,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 32,
  vocab_size: 8192,
  tie_word_embeddings: true,
};

export type Head = 'chunked' | 'logits';

export interface MemoryRow {
  label: string;
  /** The pass's own tokens: episodes of half, a quarter and two eighths of it. */
  tokens: number;
  lengths: number[];
  packing: boolean;
  head: Head;
  /** Tokens the pass computes: their sum packed, episodes x the longest padded. */
  passTokens: number;
  predicted: { activations: number; layerBackward: number; head: number; gradients: number; total: number };
}

/**
 * What the trainer's head held before issue 36 (kept here only to compare): the logits and their gradient, c + c per
 * token and vocabulary entry, and four chunks of fp32 scratch of 64 MiB.
 */
export function logitsHeadBytes(tokens: number, vocabulary: number, device: 'cuda' | 'cpu'): number {
  return 2 * computeBytes(device) * tokens * vocabulary + 4 * chunkBytes(tokens, vocabulary, 64 * 2 ** 20);
}

function row(tokens: number, packing: boolean, head: Head): MemoryRow {
  const model = qwen3Shape(MEMORY_CHECK_MODEL);
  const lengths = [tokens / 2, tokens / 4, tokens / 8, tokens / 8];
  const passTokens = packing ? tokens : lengths.length * lengths[0]!;
  const bytes = passBytes(model, 'cpu', passTokens, { checkpointing: true, sequenceParallel: 1 });
  // Either head's working set ends with its backward, before the first layer's begins.
  const headBytes = head === 'chunked' ? bytes.head : logitsHeadBytes(passTokens, model.vocabulary, 'cpu');
  const pass = bytes.activations + Math.max(bytes.layerBackward, headBytes);
  const gradients = 4 * model.parameters;
  return {
    label: `${tokens / 1024}k tokens, ${packing ? 'packed' : 'padded'}, ${head === 'chunked' ? 'chunked head' : 'logits'}`,
    tokens,
    lengths,
    packing,
    head,
    passTokens,
    predicted: {
      activations: bytes.activations,
      layerBackward: bytes.layerBackward,
      head: headBytes,
      gradients,
      total: pass + gradients,
    },
  };
}

/** Each length packed and padded through the chunked head, and padded through the logits where that fits a CPU. */
function rows(lengths: number[], logitsUpTo: number): MemoryRow[] {
  return lengths.flatMap((tokens) => [
    row(tokens, true, 'chunked'),
    row(tokens, false, 'chunked'),
    ...(tokens <= logitsUpTo ? [row(tokens, false, 'logits')] : []),
  ]);
}

export function memoryPlanText(): string {
  const plan = {
    generatedBy: 'node dist/infra/memory-check-plan.js (infra/memory-check-plan.ts)',
    config: MEMORY_CHECK_MODEL,
    parameters: qwen3Shape(MEMORY_CHECK_MODEL).parameters,
    activationCheckpointing: true,
    chunkBytes: UPDATE_MEMORY_MODEL.logitChunkBytes,
    benchmark: rows([4096, 16384, 32768], 16384),
    test: rows([1024, 4096], 4096),
  };
  return `${JSON.stringify(plan, null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(MEMORY_PLAN_FILE, memoryPlanText());
  console.log(`wrote ${MEMORY_PLAN_FILE}`);
}

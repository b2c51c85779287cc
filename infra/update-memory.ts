import { UPDATE_MEMORY_MODEL } from '../core/update-memory-model.js';
import type { CheckpointRetention, GpuWorkerInfo, ModelShape } from '../schemas/training.js';

/**
 * The memory arithmetic of the sharded policy update (docs/deploy.md), used by the preflight of `finalstate campaign
 * start` and of the campaign workflow: what one GPU, one node and the checkpoint directory hold, and whether it fits.
 *
 * Per GPU, for P parameters sharded over W ranks (all of them; with HSDP the ranks of a node), a model of L layers
 * with hidden size h and vocabulary V, and T tokens on each rank in the largest forward/backward pass (with sequence
 * parallelism S, a pass of S T tokens split between S ranks; compute in bf16, c = 2 bytes; fp32 on the CPU, c = 4):
 * - the sharded fp32 state: weight 4 + gradient 4 + AdamW's two moments 8 = 16 P / W (none with optimizer offload);
 * - the root module (input embeddings, output layer, final norm), which FSDP2 keeps unsharded through the forward
 *   and backward passes: its compute copy c, its gradient c and that gradient in fp32 for the reduce-scatter 4,
 *   per root parameter (the log-prob head sums the output layer's gradient in fp32 before that copy exists, in the
 *   same 4 bytes, each chunk's product in c before the gradient exists, in its c bytes);
 * - two decoder layers unsharded (the one computing and the one prefetched), one layer's gradient in c and in fp32;
 * - activations kept through the pass: per token and layer, what a layer saves for its backward pass
 *   (UPDATE_MEMORY_MODEL's coefficients, measured by python/tests/test_update_memory.py) for every layer, or with
 *   activation checkpointing each layer's input (c h);
 * - the larger of two working sets, which a pass never holds at once: one layer's backward (its saved activations
 *   and their gradients: with checkpointing the layer's recomputed activations and their gradients, 2 x what it
 *   saves, without it 1 x; with sequence parallelism also the all-to-all's buffers around attention,
 *   python/finalstate/grpo/attention.py), or the log-prob head's (python/finalstate/grpo/log_probs.py: no logits;
 *   the final hidden states it keeps and their gradient, c + c per token and hidden unit, 12 bytes of fp32 per
 *   token, and two chunks of fp32 scratch: a chunk's log-softmax and its exponential, or in the backward its
 *   softmax and that in the compute dtype);
 * - the CUDA context, NCCL's buffers and the allocator's fragmentation: GPU_RESERVED_BYTES and a tenth of the memory.
 * Per node: each rank's process, its share of the offloaded state (16 P / W) and, on rank 0's node, the export
 * gathered for writing (2 P in bf16).
 *
 * LoRA (update.lora, `settings.lora`): A adapter parameters (loraParameters) train and P stay frozen in the compute
 * dtype. The sharded state is (16 A + c P) / W; the root module and the two unsharded layers hold their compute copy
 * only (no gradient of a frozen weight), the layers' adapters (3 c + 4) A / L; the logits and activations are
 * counted as above (an upper bound: with adapters on every linear layer a layer saved about 11% less);
 * the export and the resumable state are the adapter's (python/tests/test_update_memory.py measures the modes).
 */

const M = UPDATE_MEMORY_MODEL;
export const GB = 1e9;
/** What a GPU keeps beside the update: the CUDA context, NCCL's buffers. */
export const GPU_RESERVED_BYTES = 2 * 2 ** 30;
/** Share of a GPU's memory left to the caching allocator's fragmentation. */
export const GPU_HEADROOM = 0.1;
/** Host memory of one rank's process (interpreter, libraries, CUDA's host side). */
export const HOST_BYTES_PER_RANK = 4 * GB;
/** Host memory left to the system and the page cache. */
export const HOST_HEADROOM = 0.1;
/** Bytes per parameter of the sharded training state a checkpoint keeps: fp32 weights 4 + AdamW moments 8. */
export const RESUMABLE_BYTES_PER_PARAMETER = 12;

export interface UpdateSettings {
  activationCheckpointing: boolean | 'auto';
  optimizerOffload: boolean;
  exportDtype: 'auto' | 'bfloat16' | 'float32';
  /** Tokens per pass on each rank (microBatchTokens): padded, or packed. */
  microBatchTokens: number;
  /** Episodes per pass at most (microBatchSize); null: no limit. */
  microBatchSize: number | null;
  /** The longest episode (the campaign's limits.maxContextTokens): a pass holds at least one. */
  maxEpisodeTokens: number;
  /** Episodes packed into one sequence (update.packing), else right-padded: the same bound either way. */
  packing: boolean;
  /** Ranks sharing one pass (update.fsdp.sequenceParallel). */
  sequenceParallel: number;
  /** HSDP: the state sharded within a node, one replica per node (update.fsdp.replicateAcrossNodes). */
  replicateAcrossNodes: boolean;
  /** update.lora: adapters of this rank on these layers; absent: full fine-tuning. */
  lora?: LoraShape;
}

export interface LoraShape {
  rank: number;
  targetModules: readonly string[];
}

/**
 * The adapter's parameters: r (in + out) for each target linear layer of every decoder layer, by the names of Qwen and
 * Llama decoders (PEFT's count for them). A name outside those counts nothing here.
 */
export function loraParameters(model: ModelShape, lora: LoraShape): number {
  const h = model.hidden;
  const i = model.intermediate;
  const q = model.attentionHeads * model.headDim;
  const kv = model.kvHeads * model.headDim;
  const widths: Record<string, number> = {
    q_proj: h + q,
    k_proj: h + kv,
    v_proj: h + kv,
    o_proj: q + h,
    gate_proj: h + i,
    up_proj: h + i,
    down_proj: i + h,
  };
  return model.layers * lora.targetModules.reduce((sum, m) => sum + lora.rank * (widths[m] ?? 0), 0);
}

/** The parameters an update trains, and so what its checkpoints hold: the adapter's with LoRA, else all. */
export function trainedParameters(model: ModelShape, lora: LoraShape | undefined): number {
  return lora ? loraParameters(model, lora) : model.parameters;
}

export interface UpdateMemory {
  gpus: number;
  device: 'cuda' | 'cpu';
  checkpointing: boolean;
  /** Tokens of the largest pass on one rank. */
  passTokens: number;
  /** Ranks the state is sharded over: every rank, or with HSDP the ranks of a node. */
  shardRanks: number;
  sequenceParallel: number;
  packing: boolean;
  perGpu: {
    shardedState: number;
    rootParameters: number;
    layerParameters: number;
    /** Activations kept through the pass. */
    activations: number;
    /** The working set of one layer's backward. */
    layerBackward: number;
    /** The working set of the log-prob head: hidden states, not logits. */
    head: number;
    total: number;
    /** What the update may use of one GPU (null on the CPU). */
    usable: number | null;
  };
  perNode: { ranks: number; processes: number; offloadedState: number; export: number; total: number };
  /** Each line names the numbers and the setting to change; empty when it fits. */
  problems: string[];
}

export function computeBytes(device: 'cuda' | 'cpu'): number {
  return device === 'cuda' ? 2 : 4;
}

export function checkpointingFor(setting: boolean | 'auto', model: ModelShape): boolean {
  return setting === 'auto' ? model.parameters >= M.autoCheckpointingParameters : setting;
}

/**
 * Bytes one decoder layer saves per token for its backward pass (bf16 coefficients, scaled to the compute dtype);
 * with sequence parallelism, key/value heads that do not split S ways are saved repeated to the query heads.
 */
export function layerActivationBytesPerToken(model: ModelShape, device: 'cuda' | 'cpu', sequenceParallel = 1): number {
  const a = M.activationBytesPerToken;
  const kvHeads = model.kvHeads % sequenceParallel === 0 ? model.kvHeads : model.attentionHeads;
  const bf16 =
    a.hidden * model.hidden +
    a.intermediate * model.intermediate +
    a.query * model.attentionHeads * model.headDim +
    a.keyValue * kvHeads * model.headDim +
    a.heads * model.attentionHeads;
  return (bf16 * computeBytes(device)) / 2;
}

/**
 * Tokens of the largest pass on one rank: microBatchTokens (or fewer episodes' worth), but never less than one
 * episode; with sequence parallelism S a pass's tokens are split between S ranks.
 */
export function passTokens(settings: UpdateSettings): number {
  const S = settings.sequenceParallel;
  const byEpisodes =
    settings.microBatchSize === null ? Infinity : (settings.microBatchSize * settings.maxEpisodeTokens) / S;
  return Math.ceil(Math.max(Math.min(settings.microBatchTokens, byEpisodes), settings.maxEpisodeTokens / S));
}

export interface PassBytes {
  /** Activations kept through the pass. */
  activations: number;
  /** One layer's backward: its (recomputed) activations, their gradients and the sequence-parallel buffers. */
  layerBackward: number;
  /** The log-prob head's working set. */
  head: number;
  /** What the pass adds at its peak: the activations and the larger working set. */
  total: number;
}

/** Bytes of one pass of `tokens` tokens on a rank, beyond the parameters and their state. */
export function passBytes(
  model: ModelShape,
  device: 'cuda' | 'cpu',
  tokens: number,
  options: { checkpointing: boolean; sequenceParallel: number },
): PassBytes {
  const c = computeBytes(device);
  const layerActivations = layerActivationBytesPerToken(model, device, options.sequenceParallel);
  const head = tokens * (2 * c * model.hidden + HEAD_FP32_BYTES_PER_TOKEN) + 2 * chunkBytes(tokens, model.vocabulary);
  const exchange = options.sequenceParallel > 1 ? 3 * c * tokens * exchangedWidth(model, options.sequenceParallel) : 0;
  const activations = options.checkpointing
    ? tokens * model.layers * c * model.hidden
    : tokens * model.layers * layerActivations;
  const layerBackward = (options.checkpointing ? 2 : 1) * tokens * layerActivations + exchange;
  return { activations, layerBackward, head, total: activations + Math.max(layerBackward, head) };
}

/** One chunk of the log-prob head's fp32 scratch: logitChunkBytes, or the whole pass's rows when they are fewer. */
export function chunkBytes(tokens: number, vocabulary: number, chunk: number = M.logitChunkBytes): number {
  const rows = Math.max(1, Math.floor(chunk / (4 * vocabulary)));
  return 4 * vocabulary * Math.min(rows, tokens);
}

/** The log-prob head's fp32 figures of each position: its log-prob, entropy and log-sum-exp. */
const HEAD_FP32_BYTES_PER_TOKEN = 12;

/**
 * The query, key and value widths a sequence-parallel all-to-all exchanges per token (key/value heads that do not
 * split S ways are repeated to the query heads first).
 */
function exchangedWidth(model: ModelShape, sequenceParallel: number): number {
  const kvHeads = model.kvHeads % sequenceParallel === 0 ? model.kvHeads : model.attentionHeads;
  return (model.attentionHeads + 2 * kvHeads) * model.headDim;
}

/** Ranks the sharded state is spread over: every rank, or with HSDP those of one node. */
export function shardRanks(worker: GpuWorkerInfo, settings: UpdateSettings): number {
  return settings.replicateAcrossNodes ? Math.min(worker.ranksPerNode, worker.worldSize) : worker.worldSize;
}

/** What the update holds, without judging whether it fits. */
function memoryOf(model: ModelShape, worker: GpuWorkerInfo, settings: UpdateSettings): UpdateMemory {
  const W = worker.worldSize;
  const c = computeBytes(worker.device);
  const checkpointing = checkpointingFor(settings.activationCheckpointing, model);
  const T = passTokens(settings);
  const rootParams = model.embeddingParameters + model.hidden;
  const perLayer = (model.parameters - rootParams) / model.layers;
  const sharding = shardRanks(worker, settings);

  const trained = trainedParameters(model, settings.lora);
  // LoRA: the frozen base in the compute dtype, with no gradient; full fine-tuning: none frozen.
  const frozen = settings.lora ? c * model.parameters : 0;
  const sharded = 16 * trained + frozen;
  const shardedState = settings.optimizerOffload ? 0 : sharded / sharding;
  const rootParameters = (settings.lora ? c : 2 * c + 4) * rootParams;
  const layerParameters = settings.lora
    ? 2 * c * perLayer + ((3 * c + 4) * trained) / model.layers
    : (3 * c + 4) * perLayer;
  const pass = passBytes(model, worker.device, T, { checkpointing, sequenceParallel: settings.sequenceParallel });
  const { activations, layerBackward, head } = pass;
  const total = shardedState + rootParameters + layerParameters + pass.total;
  const usable =
    worker.gpuMemoryBytes === null ? null : worker.gpuMemoryBytes * (1 - GPU_HEADROOM) - GPU_RESERVED_BYTES;

  const ranks = Math.min(worker.ranksPerNode, W);
  const offloadedState = settings.optimizerOffload ? (ranks * sharded) / sharding : 0;
  const exportBytes = exportBytesPerParameter(settings.exportDtype, worker.device) * trained;
  const processes = ranks * HOST_BYTES_PER_RANK;
  const nodeTotal = processes + offloadedState + exportBytes;

  return {
    gpus: W,
    device: worker.device,
    checkpointing,
    passTokens: T,
    shardRanks: sharding,
    sequenceParallel: settings.sequenceParallel,
    packing: settings.packing,
    perGpu: { shardedState, rootParameters, layerParameters, activations, layerBackward, head, total, usable },
    perNode: { ranks, processes, offloadedState, export: exportBytes, total: nodeTotal },
    problems: [],
  };
}

/** What the update holds per GPU and per node on `worker`'s ranks, and what keeps it from fitting (`problems`). */
export function planUpdateMemory(model: ModelShape, worker: GpuWorkerInfo, settings: UpdateSettings): UpdateMemory {
  const plan = memoryOf(model, worker, settings);
  const { total, usable } = plan.perGpu;
  const { ranks, offloadedState, export: exportBytes, total: nodeTotal } = plan.perNode;
  const layout = layoutProblem(model, worker, settings);
  if (layout !== null) plan.problems.push(layout);
  if (usable !== null && total > usable) plan.problems.push(gpuProblem(plan, model, worker, settings));
  const hostUsable = worker.hostMemoryBytes * (1 - HOST_HEADROOM);
  if (nodeTotal > hostUsable)
    plan.problems.push(
      `host memory per node: ${gb(nodeTotal)} of ${gb(hostUsable)} usable (${ranks} ranks x ${gb(HOST_BYTES_PER_RANK)}, ` +
        `offloaded state ${gb(offloadedState)}, the export gathered on rank 0 ${gb(exportBytes)}): ` +
        (settings.optimizerOffload
          ? `turn off update.fsdp.optimizerOffload${settings.replicateAcrossNodes ? ' or update.fsdp.replicateAcrossNodes' : ''} or train on more nodes`
          : 'train on nodes with more memory'),
    );
  return plan;
}

/** Why the ranks cannot be laid out as `settings` ask (python/finalstate/gpu_worker/sharding.py), or null. */
export function layoutProblem(model: ModelShape, worker: GpuWorkerInfo, settings: UpdateSettings): string | null {
  const S = settings.sequenceParallel;
  const perNode = Math.min(worker.ranksPerNode, worker.worldSize);
  if (perNode % S !== 0)
    return `update.fsdp.sequenceParallel ${S} must divide the ${perNode} ranks of a node (a sequence-parallel group stays on one node)`;
  if (model.attentionHeads % S !== 0)
    return `update.fsdp.sequenceParallel ${S} must divide the model's ${model.attentionHeads} attention heads`;
  if (settings.replicateAcrossNodes && worker.worldSize % perNode !== 0)
    return `update.fsdp.replicateAcrossNodes needs whole nodes: ${worker.worldSize} ranks are not a multiple of ${perNode}`;
  return null;
}

/** The per-GPU bytes of `settings` on `worker` when they fit one GPU (and lay out), else null. */
function fittingBytes(model: ModelShape, worker: GpuWorkerInfo, settings: UpdateSettings): number | null {
  if (layoutProblem(model, worker, settings) !== null) return null;
  const { total, usable } = memoryOf(model, worker, settings).perGpu;
  return usable === null || total <= usable ? total : null;
}

/** The largest n in [low, high] for which `fits(n)` (monotone: true up to some n) gives bytes, with them. */
function largestFitting(low: number, high: number, fits: (n: number) => number | null): [number, number] | null {
  if (high < low || fits(low) === null) return null;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle) === null) high = middle - 1;
    else low = middle;
  }
  return [low, fits(low)!];
}

/** Sequence-parallel sizes above `from` that the node's ranks and the model's heads allow, smallest first. */
function largerSequenceParallel(model: ModelShape, worker: GpuWorkerInfo, settings: UpdateSettings): number[] {
  const perNode = Math.min(worker.ranksPerNode, worker.worldSize);
  const sizes: number[] = [];
  for (let s = settings.sequenceParallel + 1; s <= perNode; s++)
    if (layoutProblem(model, worker, { ...settings, sequenceParallel: s }) === null) sizes.push(s);
  return sizes;
}

/**
 * The smallest changes that make an update that does not fit one GPU fit, each with the per-GPU bytes it leads to:
 * every single change that is enough (more sequence parallelism, optimizer offload, activation checkpointing, fewer
 * tokens a pass, a shorter episode limit, more GPUs); when none is, the fewest settings to change together.
 */
export function fixesFor(model: ModelShape, worker: GpuWorkerInfo, settings: UpdateSettings): string[] {
  const at = (bytes: number) => ` (per GPU ${gb(bytes)})`;
  const fixes: string[] = [];
  const sp = largerSequenceParallel(model, worker, settings)
    .map((s) => [s, fittingBytes(model, worker, { ...settings, sequenceParallel: s })] as const)
    .find(([, bytes]) => bytes !== null);
  if (sp) fixes.push(`set update.fsdp.sequenceParallel to ${sp[0]}${at(sp[1]!)}`);
  if (!settings.optimizerOffload) {
    const bytes = fittingBytes(model, worker, { ...settings, optimizerOffload: true });
    if (bytes !== null) fixes.push(`turn on update.fsdp.optimizerOffload${at(bytes)}`);
  }
  if (!checkpointingFor(settings.activationCheckpointing, model)) {
    const bytes = fittingBytes(model, worker, { ...settings, activationCheckpointing: true });
    if (bytes !== null) fixes.push(`turn on update.fsdp.activationCheckpointing${at(bytes)}`);
  }
  const T = passTokens(settings);
  const oneEpisode = Math.ceil(settings.maxEpisodeTokens / settings.sequenceParallel);
  if (T > oneEpisode) {
    const tokens = largestFitting(oneEpisode, T - 1, (n) =>
      fittingBytes(model, worker, { ...settings, microBatchTokens: n, microBatchSize: null }),
    );
    if (tokens) fixes.push(`lower update.microBatchTokens to ${tokens[0]}${at(tokens[1])}`);
  }
  const limit = largestFitting(1, settings.maxEpisodeTokens - 1, (n) =>
    fittingBytes(model, worker, { ...settings, maxEpisodeTokens: n }),
  );
  if (limit) {
    const rounded = limit[0] >= 1024 ? limit[0] - (limit[0] % 1024) : limit[0];
    const bytes = fittingBytes(model, worker, { ...settings, maxEpisodeTokens: rounded })!;
    fixes.push(`lower limits.maxContextTokens to ${rounded}${at(bytes)}`);
  }
  const needed = gpusNeeded(model, worker, settings);
  if (needed !== null && needed > worker.worldSize) fixes.push(`train on ${needed} GPUs or more`);
  if (fixes.length > 0) return fixes;

  // No one change is enough: the fewest together, among sequence parallelism, offload and checkpointing.
  const combinations: Array<{ changes: string[]; bytes: number }> = [];
  for (const s of [settings.sequenceParallel, ...largerSequenceParallel(model, worker, settings)])
    for (const offload of [settings.optimizerOffload, true])
      for (const checkpoint of [checkpointingFor(settings.activationCheckpointing, model), true]) {
        const changed = {
          ...settings,
          sequenceParallel: s,
          optimizerOffload: offload,
          activationCheckpointing: checkpoint,
        };
        const bytes = fittingBytes(model, worker, changed);
        if (bytes === null) continue;
        const changes = [
          ...(s !== settings.sequenceParallel ? [`set update.fsdp.sequenceParallel to ${s}`] : []),
          ...(offload !== settings.optimizerOffload ? ['turn on update.fsdp.optimizerOffload'] : []),
          ...(checkpoint !== checkpointingFor(settings.activationCheckpointing, model)
            ? ['turn on update.fsdp.activationCheckpointing']
            : []),
        ];
        combinations.push({ changes, bytes });
      }
  combinations.sort((a, b) => a.changes.length - b.changes.length);
  const best = combinations[0];
  if (best) return [`${best.changes.join(' and ')}${at(best.bytes)}`];
  return [
    'no change of sequence parallelism, offload or checkpointing is enough: lower limits.maxContextTokens as well',
  ];
}

function gpuProblem(plan: UpdateMemory, model: ModelShape, worker: GpuWorkerInfo, settings: UpdateSettings): string {
  const g = plan.perGpu;
  return (
    `per GPU: ${gb(g.total)} of ${gb(g.usable!)} usable on a ${gb(worker.gpuMemoryBytes!)} GPU ` +
    `(sharded state ${gb(g.shardedState)}, embeddings and output layer ${gb(g.rootParameters)}, ` +
    `two layers ${gb(g.layerParameters)}, activations ${gb(g.activations)} and the larger of a layer's backward ` +
    `${gb(g.layerBackward)} and the log-prob head ${gb(g.head)} at ${plan.passTokens} tokens a pass on each GPU` +
    `${plan.checkpointing ? ' with activation checkpointing' : ''}): ` +
    `it fits with ${fixesFor(model, worker, settings).join('; or ')}`
  );
}

/** The fewest ranks (a power of two) on which the same settings fit one GPU, or null when none does. */
export function gpusNeeded(model: ModelShape, worker: GpuWorkerInfo, settings: UpdateSettings): number | null {
  for (let gpus = 1; gpus <= 4096; gpus *= 2) {
    const plan = memoryOf(model, { ...worker, worldSize: gpus }, settings);
    if (plan.perGpu.usable === null || plan.perGpu.total <= plan.perGpu.usable) return gpus;
  }
  return null;
}

export function exportBytesPerParameter(dtype: UpdateSettings['exportDtype'], device: 'cuda' | 'cpu'): number {
  if (dtype === 'auto') return device === 'cuda' ? 2 : 4;
  return dtype === 'bfloat16' ? 2 : 4;
}

export interface CheckpointBytes {
  /** What a step writes with its resumable state (every step's by default): the resumable state and the export. */
  perStep: number;
  resumable: number;
  export: number;
  /** What a step writes on average with the cadence: its export, and the resumable state every `every` steps. */
  averagePerStep: number;
  /** What the checkpoint directory holds after `steps` steps, with the retention, and without any. */
  retained: number;
  unretained: number;
}

/**
 * Disk bytes of the checkpoints after `steps` steps: each step writes its export, and every `every`-th step (the
 * campaign's update.checkpoints.every) 12 bytes per parameter of resumable state too. Retention keeps the newest
 * keepLast steps whole, the newest resumable state and every step after it (a restarted worker replays them), and
 * the exports of the served step, of the evaluated steps (every `evaluateEvery`) and of every exportEvery-th step,
 * as python/finalstate/gpu_worker/checkpoints.py prunes.
 */
export function checkpointBytes(
  parameters: number,
  exportPerParameter: number,
  retention: CheckpointRetention,
  steps: number,
  evaluateEvery: number,
  every = 1,
): CheckpointBytes {
  const resumable = RESUMABLE_BYTES_PER_PARAMETER * parameters;
  const exportBytes = exportPerParameter * parameters;
  const all = Array.from({ length: steps }, (_, i) => i + 1);
  const replayFrom = Math.floor(steps / every) * every; // 0: no resumable state yet, every step is replayed
  const newest = all.slice(retention.keepLast === null ? 0 : -retention.keepLast);
  const whole = new Set([...newest, ...all.filter((s) => s >= replayFrom)]);
  const served = steps - 1; // published after the newest step: the newest but one is served while it runs
  const keepsExport = (s: number) =>
    retention.keepExports === 'all' ||
    s === served ||
    s % evaluateEvery === 0 ||
    (retention.exportEvery !== null && s % retention.exportEvery === 0);
  const written = (s: number) => exportBytes + (s % every === 0 ? resumable : 0);
  return {
    perStep: resumable + exportBytes,
    resumable,
    export: exportBytes,
    averagePerStep: exportBytes + resumable / every,
    retained: all.reduce((sum, s) => sum + (whole.has(s) ? written(s) : keepsExport(s) ? exportBytes : 0), 0),
    unretained: all.reduce((sum, s) => sum + written(s), 0),
  };
}

export function gb(bytes: number): string {
  return `${(bytes / GB).toFixed(1)} GB`;
}

/** GB, or MB below 0.1 GB (a test model's figures). */
function size(bytes: number): string {
  return bytes >= GB / 10 ? gb(bytes) : `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Parameters in billions, millions or thousands. */
function count(parameters: number): string {
  if (parameters >= 1e9) return `${(parameters / 1e9).toFixed(2)}B`;
  return parameters >= 1e6 ? `${(parameters / 1e6).toFixed(1)}M` : `${(parameters / 1e3).toFixed(1)}K`;
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The lines `finalstate campaign start` prints and a refusal carries: per GPU, per node. */
export function describeUpdateMemory(plan: UpdateMemory, model: ModelShape, worker: GpuWorkerInfo): string[] {
  const g = plan.perGpu;
  const n = plan.perNode;
  const cuda = worker.device === 'cuda';
  const on = cuda ? `${plan.gpus} x ${worker.deviceName}` : plural(plan.gpus, 'CPU rank');
  const unit = cuda ? 'GPU' : 'rank';
  const sharded = plan.shardRanks === plan.gpus ? '' : `, state sharded within each node of ${plan.shardRanks} (HSDP)`;
  const sequence = plan.sequenceParallel === 1 ? '' : `, sequence parallelism ${plan.sequenceParallel}`;
  return [
    `update memory: ${model.modelType} of ${count(model.parameters)} parameters on ${on} (${worker.ranksPerNode} per node${sharded}), ` +
      `${plan.passTokens} ${plan.packing ? 'packed' : 'padded'} tokens a pass on each ${unit}${sequence}, ` +
      `activation checkpointing ${plan.checkpointing ? 'on' : 'off'}`,
    `  per ${unit}: ${size(g.total)}${g.usable === null ? '' : ` of ${size(g.usable)} usable`} ` +
      `(sharded state ${size(g.shardedState)}, embeddings and output layer ${size(g.rootParameters)}, two layers ` +
      `${size(g.layerParameters)}, activations ${size(g.activations)}, the larger of a layer's backward ` +
      `${size(g.layerBackward)} and the log-prob head ${size(g.head)})`,
    `  per node: ${size(n.total)} of host memory (${plural(n.ranks, 'rank')} x ${size(HOST_BYTES_PER_RANK)}, ` +
      `${n.offloadedState === 0 ? 'no offloaded state' : `offloaded state ${size(n.offloadedState)}`}, ` +
      `the export gathered on rank 0's node ${size(n.export)})`,
  ];
}

export function describeCheckpoints(
  bytes: CheckpointBytes,
  retention: CheckpointRetention,
  steps: number,
  every = 1,
): string {
  const kept =
    retention.keepExports === 'all'
      ? 'every export'
      : `the served and evaluated steps' exports${retention.exportEvery === null ? '' : ` and every ${retention.exportEvery}th`}`;
  const whole = retention.keepLast === null ? 'every step' : `the last ${plural(retention.keepLast, 'step')}`;
  const writes =
    every === 1
      ? `each step writes ${size(bytes.perStep)} (resumable state ${size(bytes.resumable)}, export ${size(bytes.export)})`
      : `each step writes its export (${size(bytes.export)}) and every ${every}th its resumable state too ` +
        `(${size(bytes.resumable)}): ${size(bytes.averagePerStep)} a step on average`;
  return (
    `checkpoints: ${writes}; after ${steps} steps the directory holds ${size(bytes.retained)} keeping ${whole} ` +
    `whole${every === 1 ? '' : ' (and the steps since the last resumable state)'} and ${kept}, ` +
    `${size(bytes.unretained)} keeping everything`
  );
}

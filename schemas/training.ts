import { z } from 'zod';
import { UPDATE_MEMORY_MODEL } from '../core/update-memory-model.js';

/**
 * Training payloads shared by the TypeScript orchestrator and the Python trainer (python/finalstate/grpo,
 * python/finalstate/gpu_worker). The Python side validates against the exported JSON Schema
 * (schemas/json/*.schema.json) and fills defaults from it, so every default lives here only.
 */

const TokenId = z.number().int().min(0);
const Finite = z.number().refine(Number.isFinite, 'must be a finite number');
/** A policy version (core/policy-versions.ts: the step whose update made it, the base policy 0) or -1: none. */
const TokenVersion = z.number().int().min(-1);

/**
 * One episode of a training batch, as a single token sequence (prompt, completions and tool results together).
 * Position i of `lossMask` and `rolloutLogprobs` describes token i: mask 1 means token i was sampled by the policy
 * and is trained on, and its rollout logprob is log p(tokenIds[i] | tokenIds[<i]) under the policy that sampled it.
 * Where the mask is 0 the logprob is 0. Token 0 has no prediction, so its mask is 0. `rolloutVersions[i]` is the
 * version of the policy that sampled token i (-1 where no policy did: the prompt, tool results, user turns).
 */
const EpisodeMeta = {
  episodeId: z.string().min(1),
  taskId: z.string().min(1),
  groupId: z.string().min(1).describe('Episodes of one group share a prompt; advantages are computed within a group.'),
  reward: Finite,
};
export const TrainingEpisode = z
  .object({
    ...EpisodeMeta,
    tokenIds: z.array(TokenId).min(2),
    lossMask: z.array(z.number().int().min(0).max(1)).describe('Aligned with tokenIds.'),
    rolloutLogprobs: z.array(z.number().max(0)).describe('Aligned with tokenIds; 0 where lossMask is 0.'),
    rolloutVersions: z
      .array(TokenVersion)
      .describe(
        "Aligned with tokenIds: the policy version that sampled each token (its sample segment's policyVersion as a " +
          'number, core/policy-versions.ts versionNumber), -1 where no policy sampled it.',
      ),
  })
  .strict()
  .refine(
    (e) =>
      e.lossMask.length === e.tokenIds.length &&
      e.rolloutLogprobs.length === e.tokenIds.length &&
      e.rolloutVersions.length === e.tokenIds.length,
    { message: 'lossMask, rolloutLogprobs and rolloutVersions must have one entry per token id' },
  );
export type TrainingEpisode = z.infer<typeof TrainingEpisode>;

/** One per-token array of a training batch: a 1-D little-endian `.npy` file beside the manifest. */
const BatchArray = <D extends string>(dtype: D) =>
  z
    .object({
      file: z
        .string()
        .regex(/^[A-Za-z0-9._-]+\.npy$/)
        .describe("A file name in the manifest's directory."),
      dtype: z.literal(dtype),
      length: z.number().int().min(2).describe('Elements in the file: the batch total of tokens.'),
    })
    .strict();

/**
 * The file a policy update trains on (`PolicyUpdateInput.batchUri`): a manifest of the episodes, each a slice
 * [offset, offset + length) of flat arrays that hold every episode's tokens back to back (TrainingEpisode's
 * columns, with its bounds). Arrays, not JSON: a step of 256 episodes × 110k tokens is ~28M tokens, which one JSON
 * string cannot hold; the arrays are written episode by episode and read memory-mapped. Batches written before
 * `rolloutVersions` existed have no such array: they train alike, without staleness figures.
 */
export const TrainingBatch = z
  .object({
    format: z.literal('finalstate-batch/1'),
    tokens: z.number().int().min(2).describe('Tokens of all episodes together: the length of every array.'),
    episodes: z
      .array(
        z
          .object({
            ...EpisodeMeta,
            offset: z.number().int().min(0).describe("The episode's first token in the arrays."),
            length: z.number().int().min(2),
          })
          .strict(),
      )
      .min(1),
    arrays: z
      .object({
        tokenIds: BatchArray('int32'),
        lossMask: BatchArray('uint8'),
        rolloutLogprobs: BatchArray('float32'),
        rolloutVersions: BatchArray('int32').optional(),
      })
      .strict(),
  })
  .strict();
export type TrainingBatch = z.infer<typeof TrainingBatch>;
export type BatchEpisodeSlice = TrainingBatch['episodes'][number];

export const OptimizerConfig = z
  .object({
    lr: z.number().positive().default(1e-6),
    weightDecay: z.number().min(0).default(0),
    betas: z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]).default([0.9, 0.999]),
    eps: z.number().positive().default(1e-8),
    maxGradNorm: z
      .number()
      .positive()
      .default(1.0)
      .describe('Gradient-norm clipping threshold.')
      .meta({ python: 'grad_clip' }),
  })
  .strict();

/** The loss's correction for turns sampled by other weights than those it starts from (see LossConfig). */
export const OffPolicyCorrection = z.enum(['none', 'tis']);

export const LossConfig = z
  .object({
    clipLow: z
      .number()
      .min(0)
      .default(0.2)
      .describe('Ratio lower bound is 1 - clipLow.')
      .meta({ python: 'clip_ratio_low' }),
    clipHigh: z
      .number()
      .min(0)
      .default(0.2)
      .describe('Ratio upper bound is 1 + clipHigh (raise it for DAPO clip-higher).')
      .meta({ python: 'clip_ratio_high' }),
    klCoef: z
      .number()
      .min(0)
      .default(0)
      .describe("Weight of the k3 KL estimate to klReference's log-probs, added to the loss. 0: off.")
      .meta({ python: 'kl_loss_coef' }),
    klReference: z
      .enum(['ratio', 'base'])
      .default('ratio')
      .describe(
        "What klCoef's KL is measured against. ratio: the ratio's reference (the rollout policy, or with " +
          "offPolicyCorrection 'tis' the starting weights), a trust region around each step's start. base: the " +
          'base policy the campaign started from, recomputed by the trainer every step without gradients (a ' +
          'frozen copy of update.baseModel, or with LoRA the model with its adapter disabled), so the policy stays ' +
          'near the base over the whole campaign: the KL penalty to the reference policy of PPO-style RLHF ' +
          '(docs/policy-stack.md).',
      ),
    entropyCoef: z
      .number()
      .min(0)
      .default(0)
      .describe(
        "Weight of an entropy bonus (verl's actor.entropy_coeff): the loss subtracts entropyCoef x the loss tokens' " +
          'mean entropy (aggregated as the policy loss), so the update resists the entropy collapse that narrows ' +
          'coverage. 0: off (docs/policy-stack.md).',
      )
      .meta({ python: 'entropy_coeff' }),
    normalizeStd: z
      .boolean()
      .default(true)
      .describe('Divide group-centred rewards by the group std.')
      .meta({ python: 'norm_adv_by_std_in_grpo' }),
    eps: z.number().positive().default(1e-6).describe('Added to the group std.').meta({ python: 'epsilon' }),
    passAtK: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'null: GRPO advantages. k: the analytic pass@k advantage (Chen et al., arXiv 2508.10751): a k-subset of a ' +
          'group scores 1 when any of its episodes passed, and each episode gets the mean advantage of the subsets ' +
          'holding it. It credits a group for solving a task at least once and stops pushing a task the group ' +
          'solves in every k-subset, to keep coverage (pass@k) while pass@1 rises; k = 1 is GRPO with the ' +
          'population std. At most campaign.rolloutsPerGroup (docs/policy-stack.md).',
      ),
    unlikeliness: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe(
        "The unlikeliness reward's weight (He et al., arXiv 2506.02355, their beta_rank): in a group that both " +
          'passed and failed, the G episodes are ranked by their likelihood under the rollout policy (the sum of ' +
          'the log-probs of the turns the policy wrote; rank 0 the most likely), and a pass of rank r is rewarded ' +
          '1 - unlikeliness x (G - r) / G instead of 1, so the advantage favours the rare ways of passing over the ' +
          'one the policy already prefers. Which groups are informative is still decided on the 0/1 rewards. ' +
          '0: off. Not with passAtK (docs/policy-stack.md).',
      ),
    aggregation: z.enum(['token-mean', 'seq-mean-token-mean']).default('token-mean').meta({ python: 'loss_agg_mode' }),
    offPolicyCorrection: OffPolicyCorrection.default('none')
      .describe(
        'none: the ratio of the clipped loss is against the rollout log-probs (what the sampler returned). tis: the ' +
          'update first recomputes, without gradients, the log-probs of the weights it starts from (the proximal ' +
          'policy); the ratio is against those, and each loss token is weighted by the truncated importance weight ' +
          "min(p_prox / p_rollout, isCap), detached: token-level TIS (verl's rollout correction, AReaL's decoupled " +
          'PPO). It corrects for turns sampled by older versions (asynchronous steps) and for the sampler-trainer ' +
          'mismatch, at the cost of one forward pass over the batch (docs/policy-stack.md).',
      )
      .meta({ python: 'rollout_is' }),
    isCap: z
      .number()
      .min(1)
      .default(2.0)
      .describe(
        "With offPolicyCorrection 'tis': the truncation of the importance weight (verl's rollout_is_threshold).",
      )
      .meta({ python: 'rollout_is_threshold' }),
  })
  .strict();

/** A count that may be absent (null: no limit, or the whole batch). */
const CountOrNull = z.number().int().min(1).nullable().default(null);

export const MiniBatchGroups = CountOrNull.describe(
  "Whole groups per AdamW step (verl's ppo_mini_batch_size, counted in groups). The groups are shuffled, seeded by " +
    'seed and step, and each mini-batch is one optimizer step, so one rollout batch gives several updates; the ' +
    'clipped ratio bounds the later, off-policy ones. null: the whole batch is one step.',
);

/** UPDATE_MEMORY_MODEL (core/update-memory-model.ts), exported so that the Python trainer and its tests read it. */
export const UpdateMemoryModel = z
  .object({
    logitChunkBytes: z.literal(UPDATE_MEMORY_MODEL.logitChunkBytes),
    activationBytesPerToken: z
      .object({
        hidden: z.literal(UPDATE_MEMORY_MODEL.activationBytesPerToken.hidden),
        intermediate: z.literal(UPDATE_MEMORY_MODEL.activationBytesPerToken.intermediate),
        query: z.literal(UPDATE_MEMORY_MODEL.activationBytesPerToken.query),
        keyValue: z.literal(UPDATE_MEMORY_MODEL.activationBytesPerToken.keyValue),
        heads: z.literal(UPDATE_MEMORY_MODEL.activationBytesPerToken.heads),
      })
      .strict(),
    autoCheckpointingParameters: z.literal(UPDATE_MEMORY_MODEL.autoCheckpointingParameters),
  })
  .strict()
  .describe('Constants of the update memory arithmetic (infra/update-memory.ts); every field is a const.');

/** How the update is sharded across the gpu worker's ranks (FSDP2 under torchrun) and what its checkpoints hold. */
export const FsdpConfig = z
  .object({
    activationCheckpointing: z
      .union([z.boolean(), z.literal('auto')])
      .default('auto')
      .describe(
        "Recompute each decoder layer's activations in the backward pass: less memory, about a third more compute. " +
          `auto: on for models of ${UPDATE_MEMORY_MODEL.autoCheckpointingParameters / 1e9}B parameters or more.`,
      )
      .meta({ python: 'enable_gradient_checkpointing' }),
    optimizerOffload: z
      .boolean()
      .default(false)
      .describe(
        'Keep the sharded fp32 parameters, gradients and AdamW moments in host memory (FSDP2 CPUOffloadPolicy): the optimizer step runs on the CPU. 16 bytes per parameter of host memory, spread over the ranks.',
      ),
    exportDtype: z
      .enum(['auto', 'bfloat16', 'float32'])
      .default('auto')
      .describe(
        'dtype of the consolidated Hugging Face export that policy servers load. auto: bfloat16 when the update runs on CUDA, float32 on CPU (the dtype the policy computes in).',
      ),
    sequenceParallel: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe(
        "Ranks that share one forward/backward pass, each holding a contiguous slice of its tokens through the whole model (Ulysses: an all-to-all around attention trades the slice for all tokens of 1/S of the heads). It divides an episode's activations by S, so episodes longer than one GPU holds can train. S consecutive ranks on one node form a group; it must divide the ranks per node and the model's attention heads. 1: off.",
      )
      .meta({ python: 'ulysses_sequence_parallel_size' }),
    replicateAcrossNodes: z
      .boolean()
      .default(false)
      .describe(
        "HSDP: shard the parameters, gradients and AdamW state within each node and keep one replica per node, so the per-layer all-gathers and reduce-scatters stay on the node's fast links and only a gradient all-reduce crosses nodes. Each GPU then holds 16 bytes per parameter / GPUs per node instead of / all GPUs.",
      ),
  })
  .strict();

/**
 * LoRA (PEFT's LoraConfig): train low-rank adapters on the frozen base model instead of every weight. Absent: full
 * fine-tuning. The defaults follow the peers and "LoRA Without Regret" (Schulman et al. 2025, reproduced in TRL's
 * docs/source/lora_without_regret.md): adapters on every linear layer of the decoder (attention and MLP), rank 16 and
 * alpha 32 (prime-rl's defaults; a low rank holds what an RL step teaches), no dropout (RL updates are few and on-
 * policy: prime-rl and verl train RL adapters without it). Raise the learning rate with it: about 10x full fine-
 * tuning's (verl docs/advance/ppo_lora.rst, LoRA Without Regret).
 */
export const LoraConfig = z
  .object({
    rank: z
      .number()
      .int()
      .min(1)
      .default(16)
      .describe(
        "The adapters' rank r (PEFT's r). A vLLM rollout server must be started with --max-lora-rank at least this.",
      )
      .meta({ python: 'r' }),
    alpha: z
      .number()
      .positive()
      .default(32)
      .describe("Scaling numerator (PEFT's lora_alpha): the adapter's output is scaled by alpha / rank.")
      .meta({ python: 'lora_alpha' }),
    dropout: z
      .number()
      .min(0)
      .lt(1)
      .default(0)
      .describe("Dropout on the adapters' input (PEFT's lora_dropout).")
      .meta({ python: 'lora_dropout' }),
    targetModules: z
      .array(z.string().regex(/^[A-Za-z0-9_.]+$/, 'a module name: letters, digits, _ and .'))
      .min(1)
      .default(['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'])
      .describe(
        "Names (PEFT's target_modules: a module whose name ends with one) of the linear layers that get adapters. Default: every linear layer of a Qwen / Llama decoder layer.",
      ),
  })
  .strict();
export type LoraConfig = z.infer<typeof LoraConfig>;

export const MicroBatchTokens = z
  .number()
  .int()
  .min(1)
  .default(8192)
  .describe(
    'Tokens per forward/backward pass on each rank: the memory of a pass grows with its tokens. Padded passes count ' +
      'episodes x the longest of them, packed ones (packing) the sum of their lengths. With fsdp.sequenceParallel S ' +
      'the S ranks of a group share a pass of up to S times this. An episode longer than that is a pass of its own.',
  );

export const Packing = z
  .boolean()
  .default(true)
  .describe(
    'Pack the episodes of a pass back to back into one sequence, each with positions from 0 and attention that ' +
      "never crosses into another (verl's use_remove_padding), instead of right-padding each to the longest: no " +
      'compute or memory is spent on padding. The same loss and gradients either way (docs/policy-stack.md).',
  );

export const MicroBatchSize = CountOrNull.describe(
  'At most this many episodes per forward/backward pass on each rank, on top of microBatchTokens; null: no limit.',
);

/**
 * Which checkpoints of a campaign stay on disk. Every step writes its consolidated export (2 bytes per parameter in
 * bf16) and, every `checkpoints.every` steps, its sharded training state (fp32 weights and AdamW moments: 12 bytes
 * per parameter); once a step's checkpoint is complete, the gpu worker deletes what the campaign no longer needs.
 */
export const CheckpointRetention = z
  .object({
    keepLast: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(2)
      .describe(
        "The newest N steps stay whole (resumable: a resumed or replayed update continues from the newest). Older steps lose their sharded training state. null: every step's stays. With checkpoints.every above 1, the newest step that holds a resumable state and every step after it stay whole too: a restarted worker replays those steps from it.",
      ),
    keepExports: z
      .enum(['needed', 'all'])
      .default('needed')
      .describe(
        "needed: older steps keep their export only while the campaign needs it: the served policy's and every evaluated step's (and every exportEvery-th); the rest are deleted whole. all: every step keeps its export.",
      ),
    exportEvery: CountOrNull.describe('Also keep the export of every N-th step (a policy to compare or serve later).'),
  })
  .strict();
export type CheckpointRetention = z.infer<typeof CheckpointRetention>;

/** How often an update writes its resumable state (the export that serving needs is written every step). */
export const CheckpointCadence = z
  .object({
    every: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe(
        "Write the resumable state (sharded/: fp32 weights and AdamW moments, 12 bytes per parameter) only after every N-th step; every step still writes its export and trainer_state.json, which records the step's whole input. A gpu worker restarted between two resumable states loads the last one and re-runs the steps since from their recorded batches and inputs, to the same weights. 1: every step.",
      )
      .meta({ python: 'save_freq' }),
  })
  .strict();
export type CheckpointCadence = z.infer<typeof CheckpointCadence>;

/** Input of the `policyUpdate` activity (task queue `gpu`). */
export const PolicyUpdateInput = z
  .object({
    campaignId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'campaign ids are letters, digits and . _ -'),
    step: z.number().int().min(1).describe('The update step; the checkpoint it writes is named after it.'),
    batchUri: z
      .string()
      .min(1)
      .describe('file:// URI or plain path of a TrainingBatch manifest (its arrays beside it).'),
    checkpointDir: z.string().min(1).describe("Directory holding this campaign's checkpoints (step-000001, ...)."),
    baseModel: z.string().min(1).describe('Hugging Face checkpoint directory to start from when no checkpoint exists.'),
    optimizer: OptimizerConfig.prefault({}).meta({ python: 'optim' }),
    loss: LossConfig.prefault({}),
    fsdp: FsdpConfig.prefault({}),
    microBatchTokens: MicroBatchTokens,
    microBatchSize: MicroBatchSize.meta({ python: 'ppo_micro_batch_size_per_gpu' }),
    miniBatchGroups: MiniBatchGroups,
    packing: Packing.meta({ python: 'use_remove_padding' }),
    seed: z.number().int().min(0).default(0),
    retention: CheckpointRetention.prefault({}),
    checkpoints: CheckpointCadence.prefault({}),
    lora: LoraConfig.optional().describe(
      'Train LoRA adapters on the frozen base model (the checkpoints then hold the adapter only). Absent: full fine-tuning.',
    ),
    neededExports: z
      .array(z.number().int().min(1))
      .default([])
      .describe(
        "Steps whose exports the campaign still needs (the served policy's, the evaluated ones); retention keeps them.",
      ),
  })
  .strict();
export type PolicyUpdateInput = z.input<typeof PolicyUpdateInput>;

export const PolicyUpdateMetrics = z
  .object({
    loss: Finite.describe('The policy loss (the mean over mini-batches).'),
    gradNorm: Finite.describe('Total gradient norm before clipping (the mean over mini-batches).'),
    clipFraction: Finite.describe('Share of loss tokens whose ratio was clipped.'),
    entropy: Finite.describe('Token-mean entropy of the current policy on loss tokens.'),
    approxKl: Finite.describe(
      "Token-mean k3 estimate of KL(reference || current) on loss tokens; the reference is the rollout policy, or with offPolicyCorrection 'tis' the starting weights.",
    ),
    tokensPerSecond: Finite.describe('Tokens (all positions) processed per second of update.'),
    tokens: z.number().int().min(0).describe('Loss-masked tokens in the batch.'),
    optimizerSteps: z.number().int().min(1).describe('AdamW steps taken: one per mini-batch.'),
    stalenessMean: Finite.optional().describe(
      'Mean lag of the loss tokens in versions: (step - 1) minus the version that sampled the token, 0 for a token ' +
        'the starting weights sampled. Absent when the batch records no versions (older batches).',
    ),
    stalenessMax: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The largest lag of a loss token (absent as stalenessMean).'),
    samplerDriftMean: Finite.optional().describe(
      'Mean |log p_start - log p_rollout| over loss tokens: how far the log-probs of the weights the update starts ' +
        "from are from those the sampler returned. With maxStaleness 0 it is the sampler-trainer mismatch (vLLM's " +
        "kernels and precision against the trainer's). With offPolicyCorrection 'tis' it is measured on every loss " +
        "token by the recompute; with 'none' for free, from the first mini-batch's forward passes (which run on the " +
        'starting weights), so on the loss tokens of that mini-batch only.',
    ),
    samplerDriftMax: Finite.optional().describe('The largest |log p_start - log p_rollout| of those tokens.'),
    isWeightMean: Finite.optional().describe(
      "offPolicyCorrection 'tis' only: mean importance weight p_prox / p_rollout over loss tokens, before " +
        'truncation (the weight is bounded at exp(20) against overflow).',
    ),
    isWeightMax: Finite.optional().describe("offPolicyCorrection 'tis' only: the largest importance weight."),
    isTruncatedFraction: Finite.optional().describe(
      "offPolicyCorrection 'tis' only: share of loss tokens whose importance weight was truncated at isCap.",
    ),
    replayedSteps: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'Steps re-run from their recorded batches and inputs before this update, because the worker restarted ' +
          'after a step that wrote no resumable state (update.checkpoints.every). Absent: none.',
      ),
  })
  .strict();

/** Output of the `policyUpdate` activity. */
export const PolicyUpdateResult = z
  .object({
    checkpointUri: z
      .string()
      .min(1)
      .describe(
        'file:// URI of the complete checkpoint directory: a Hugging Face model dir (the consolidated export) plus the sharded training state in sharded/.',
      ),
    step: z.number().int().min(1),
    reused: z.boolean().describe("True when this step's checkpoint already existed and no training happened."),
    metrics: PolicyUpdateMetrics,
    stalenessHistogram: z
      .array(z.number().int().min(0))
      .optional()
      .describe(
        'Loss tokens by lag: entry i counts the loss tokens sampled i versions behind the weights the update ' +
          'started from (version step - 1 - i). Absent when the batch records no versions. Beside the metrics, ' +
          'which are scalars.',
      ),
  })
  .strict();
export type PolicyUpdateResult = z.infer<typeof PolicyUpdateResult>;

/**
 * One rendered demonstration for supervised fine-tuning of the base model (one JSONL line): the full chat text as
 * the model sees it, and the character ranges [start, end) written by the assistant, which are the only ones trained on.
 */
export const SftDemonstration = z
  .object({
    text: z.string().min(1),
    assistantSpans: z
      .array(z.tuple([z.number().int().min(0), z.number().int().min(0)]))
      .min(1)
      .describe(
        'Ranges [start, end) of assistant-written text in JavaScript string indices (UTF-16 code units), in order and ' +
          'not overlapping; include each closing <|im_end|> so that the model learns to stop.',
      ),
  })
  .strict()
  .refine(
    (d) => d.assistantSpans.every(([s, e], i, all) => s < e && e <= d.text.length && (i === 0 || all[i - 1]![1] <= s)),
    {
      message: 'assistantSpans must be ordered, non-empty, non-overlapping ranges inside text',
    },
  );
export type SftDemonstration = z.infer<typeof SftDemonstration>;

/** The shape of a causal LM, read from its config on the meta device (what the update's memory depends on). */
export const ModelShape = z
  .object({
    modelType: z.string(),
    parameters: z.number().int().positive().describe('Every parameter once (tied embeddings count once).'),
    embeddingParameters: z
      .number()
      .int()
      .min(0)
      .describe('The input embeddings, plus the output layer when it is not tied to them.'),
    layers: z.number().int().positive(),
    hidden: z.number().int().positive(),
    intermediate: z.number().int().positive(),
    attentionHeads: z.number().int().positive(),
    kvHeads: z.number().int().positive(),
    headDim: z.number().int().positive(),
    vocabulary: z.number().int().positive(),
    tiedEmbeddings: z.boolean(),
  })
  .strict();
export type ModelShape = z.infer<typeof ModelShape>;

/** The gpu worker's ranks and their memory, as it reports them. */
export const GpuWorkerInfo = z
  .object({
    worldSize: z.number().int().positive(),
    ranksPerNode: z.number().int().positive(),
    device: z.enum(['cuda', 'cpu']),
    deviceName: z.string(),
    gpuMemoryBytes: z.number().int().positive().nullable().describe("One GPU's memory (null on the CPU)."),
    hostMemoryBytes: z.number().int().positive().describe("Rank 0's node's memory."),
    collectiveTimeoutS: z.number().positive(),
  })
  .strict();
export type GpuWorkerInfo = z.infer<typeof GpuWorkerInfo>;

/** Input of the gpu worker's `describeUpdate` activity. */
export const DescribeUpdateInput = z.object({ baseModel: z.string().min(1) }).strict();
export type DescribeUpdateInput = z.infer<typeof DescribeUpdateInput>;

/** Output of `describeUpdate`: what the memory preflight (infra/update-memory.ts) computes from. */
export const UpdateDescription = z.object({ worker: GpuWorkerInfo, model: ModelShape }).strict();
export type UpdateDescription = z.infer<typeof UpdateDescription>;

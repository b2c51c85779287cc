import { z } from 'zod';
import { TrackingConfig } from './tracking.js';
import {
  CheckpointCadence,
  CheckpointRetention,
  FsdpConfig,
  LoraConfig,
  LossConfig,
  OffPolicyCorrection,
  MicroBatchSize,
  MicroBatchTokens,
  MiniBatchGroups,
  OptimizerConfig,
  Packing,
} from './training.js';
import {
  ChatEndpointConfig,
  JudgeConfig,
  noDuplicateServers,
  PolicyServerRef,
  UserSimulatorConfig,
} from './clients.js';
import { EpisodeLimits, PolicyRef } from './episode.js';
import { BinEdges, DEFAULT_EDGES, EvalPoint, PoolRecord, StepSummary } from './results.js';

const Count = z.number().int().nonnegative();
const Positive = z.number().int().positive();
const Duration = z.string().regex(/^\d+(\.\d+)?\s*(ms|s|m|h|d)$/, 'a duration such as "30s", "10m" or "2h"');

/** One task set a campaign reads: a task-set JSONL file (with its manifest beside it) and the split to use. */
export const TaskSource = z
  .object({
    taskSet: z
      .string()
      .min(1)
      .describe(
        'Path (relative to the working directory) or file:// URI of a task-set JSONL file, or of a directory whose task sets are all read, sub-folders included (one per domain, say).',
      ),
    split: z.enum(['train', 'eval']),
    profile: z.enum(['full', 'mini']).optional().describe('Keep only tasks of this profile.'),
    limit: Positive.optional().describe(
      "Keep at most N tasks of each task set, taking the task types in turn (each type's tasks in file order), for small runs.",
    ),
    domains: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        "Keep only tasks of these domains. On the training source they are the campaign's training domains; evaluation domains outside them are reported as out-of-domain.",
      ),
  })
  .strict();
export type TaskSource = z.infer<typeof TaskSource>;

export const ProbingConfig = z
  .object({
    n: Positive.default(10).describe(
      'Probe episodes per candidate task when adaptive stopping is off (and the first batch size when on).',
    ),
    nMax: Positive.default(20).describe('Adaptive probing never runs more than this many episodes of one task.'),
    adaptive: z
      .boolean()
      .default(true)
      .describe('Stop probing a task once one difficulty bin holds `threshold` of the posterior mass.'),
    threshold: z.number().gt(0).max(1).default(0.9),
    window: Positive.default(32).describe('Probe episodes in flight at most (sliding window).'),
  })
  .strict()
  .refine((p) => p.nMax >= p.n, { message: 'nMax must be at least n', path: ['nMax'] });
export type ProbingConfig = z.infer<typeof ProbingConfig>;

/** The selection rule, with the options of stats/selection.ts `selectPool`. */
export const SelectionConfig = z
  .object({
    edges: BinEdges.default([...DEFAULT_EDGES]).describe('Difficulty bin edges.'),
    keep: z.array(Count).optional().describe('Bins to keep; default all but the first and last.'),
    max: Positive.nullable().default(null).describe('Cap on the pool size (seeded, stratified by domain and tags).'),
    seed: z.number().int().default(0),
  })
  .strict();
export type SelectionConfig = z.infer<typeof SelectionConfig>;

/**
 * Re-probing during training (off unless given): every `everySteps` steps the current policy probes every candidate
 * task again, n episodes each, and the selection rule (selection.edges / keep) swaps pool tasks that left the kept bins
 * for candidates now in them; the pool keeps its size (stats/pool-swap.ts).
 */
export const ReprobeConfig = z
  .object({
    everySteps: Positive.describe(
      'Re-probe after every N-th GRPO step (only when more steps follow), with the policy that step published.',
    ),
    n: Positive.optional().describe(
      'Episodes per candidate task (the pool and the other candidates alike), fixed: no adaptive stopping. Default probing.n, so that one re-probe costs at most what the first probe did.',
    ),
  })
  .strict();
export type ReprobeConfig = z.infer<typeof ReprobeConfig>;

/**
 * Optimiser and loss settings, passed through to the `policyUpdate` activity, which validates them against
 * PolicyUpdateInput (schemas/training.ts) and fills its defaults there.
 */
export const UpdateConfig = z
  .object({
    baseModel: z.string().min(1).describe('Hugging Face checkpoint directory the first update starts from.'),
    checkpointDir: z
      .string()
      .min(1)
      .optional()
      .describe('Where checkpoints go; default <artifacts>/<campaignId>/checkpoints.'),
    optimizer: OptimizerConfig.prefault({}),
    loss: LossConfig.extend({
      offPolicyCorrection: OffPolicyCorrection.optional().describe(
        "Default: 'tis' with async.maxStaleness >= 1 (turns sampled by older versions need the correction), else 'none' (the synchronous step's loss, unchanged). See PolicyUpdateInput's loss.offPolicyCorrection.",
      ),
    }).prefault({}),
    fsdp: FsdpConfig.prefault({}),
    microBatchTokens: MicroBatchTokens,
    microBatchSize: MicroBatchSize,
    miniBatchGroups: MiniBatchGroups,
    packing: Packing,
    retention: CheckpointRetention.prefault({}).describe(
      'Which checkpoints stay on disk; `finalstate campaign start` prints the bytes each step writes and what stays.',
    ),
    checkpoints: CheckpointCadence.prefault({}).describe(
      'How often the resumable state is written (every step by default; the export that serving needs always is).',
    ),
    lora: LoraConfig.optional().describe(
      'Train LoRA adapters instead of every weight, and publish each step as an adapter (vLLM: --enable-lora, /v1/load_lora_adapter). Absent: full fine-tuning. docs/policy-stack.md (LoRA).',
    ),
    maskTruncatedTurns: z
      .boolean()
      .default(false)
      .describe(
        "Leave agent turns cut off by the per-turn token limit (finish reason 'length') out of the loss: DAPO's overlong " +
          "filtering (TRL's mask_truncated_completions) per turn. The episode's reward and its finished turns still train.",
      ),
    truncationPenalty: z
      .number()
      .min(0)
      .default(0)
      .describe(
        'Subtracted from the training reward of an episode with a turn cut off at the per-turn token limit (a constant ' +
          "form of DAPO's overlong punishment), so that within a group a cut-off failure ranks below a clean one. The " +
          'grade, the reward that decides whether a group is informative, and every reported figure stay 0/1.',
      ),
    timeout: Duration.default('2h').describe('Start-to-close timeout of one policy update.'),
    heartbeatTimeout: Duration.default('5m').describe(
      'The gpu worker heartbeats before loading the batch and the model, and per micro-batch; a silent one is presumed dead after this and the update is retried (fixed at 5 minutes before, which a killed gpu worker cost in full). Keep it above the time a fresh worker takes to load the model.',
    ),
  })
  .strict();
export type UpdateConfig = z.infer<typeof UpdateConfig>;

export const EpisodeRetryConfig = z
  .object({
    // 10 attempts 1, 2, 4, 8, then 10 s apart ride out about a minute of outage (a PostgreSQL restart takes ~20 s on
    // a busy 2-core machine: it syncs the data directory); 3 attempts 1 and 2 s apart gave up after 3 s, and every
    // episode in flight was lost (docs/reliability.md).
    maxAttempts: Positive.default(10).describe('Attempts of one episode activity before its group is refilled.'),
    initialInterval: Duration.default('1s'),
    backoffCoefficient: z.number().min(1).default(2),
    maximumInterval: Duration.default('10s'),
    startToCloseTimeout: Duration.default('15m'),
    heartbeatTimeout: Duration.default('2m').describe(
      'An episode heartbeats once per turn; a silent worker is presumed dead after this.',
    ),
  })
  .strict();
export type EpisodeRetryConfig = z.infer<typeof EpisodeRetryConfig>;

/**
 * The reference policy's probe: a stronger model reached through an OpenAI-compatible chat API plays every candidate
 * `n` times after the base probe; its rows are kept beside the base probe's (result set "<id>/probe-reference").
 */
export const ReferenceProbeConfig = z
  .object({
    endpoint: ChatEndpointConfig.describe('The reference model (chat completions with tools).'),
    n: Positive.default(1).describe('Episodes per candidate.'),
    gate: z
      .boolean()
      .default(true)
      .describe(
        'Keep in the pool only tasks the reference solved at least once. false: record and report the reference probe only (e.g. a weak reference that solves nothing, to test the wiring).',
      ),
  })
  .strict();
export type ReferenceProbeConfig = z.infer<typeof ReferenceProbeConfig>;

/** The rollout fleet's rules (the servers themselves are `policyServers`). */
export const FleetConfig = z
  .object({
    minServers: Positive.default(1).describe(
      'A publish fails (and is retried, then fails the step) only when fewer servers than this serve the new version; a server whose publish failed is ejected and reported, and comes back once the fleet has published the current version to it.',
    ),
    reconcileEvery: Duration.default('30s').describe(
      'How often, while a step\'s rollouts run, every server\'s version is read and the current version published to each one that is reachable and behind (a restarted vLLM reports "default").',
    ),
    servingSpeed: z
      .object({
        prefillTokensPerSecond: z.number().positive().finite(),
        decodeTokensPerSecond: z.number().positive().finite(),
      })
      .strict()
      .optional()
      .describe(
        "One request's speed on an idle rollout server: prompt tokens read and tokens sampled per second. `campaign start` derives the waits a turn and an episode need from it and the token limits (policy.client.timeoutMs, episodes.startToCloseTimeout, episodes.heartbeatTimeout, where the file does not state them), and refuses stated ones that are too short. Absent: measured on the first rollout server that answers.",
      ),
  })
  .strict();
export type FleetConfig = z.infer<typeof FleetConfig>;

/**
 * The price of the training's own compute: the second cost per dependable task (docs/results.md#cost-with-the-training-in-it)
 * prices each step's update and publish time with it.
 */
export const ComputeCosts = z
  .object({
    usdPerGpuHour: z
      .number()
      .nonnegative()
      .finite()
      .default(2)
      .describe(
        "US dollars per GPU-hour of the update and publish time; on a machine without GPUs (the CPU demo), per CPU-hour of the machine they run on. Default 2: about what one data-centre GPU rents for by the hour; a notional price, like the demo presets' token prices.",
      ),
    gpus: Positive.default(1).describe(
      "GPUs the update and publish hold (the gpu worker's ranks): the step's update and publish seconds are paid this many times.",
    ),
  })
  .strict();
export type ComputeCosts = z.infer<typeof ComputeCosts>;

/** The fields of a campaign config, before the checks across fields (CampaignConfig). */
export const CampaignConfigFields = z
  .object({
    campaignId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'campaign ids are letters, digits and . _ -'),
    policy: PolicyRef.describe('The base policy (a served model, or the oracle for pipeline checks).'),
    policyServers: z
      .array(PolicyServerRef)
      .min(
        1,
        'is [] (no server): list at least one rollout server, or leave policyServers out to use policy.client.baseUrl',
      )
      .superRefine(noDuplicateServers)
      .optional()
      .describe(
        "The rollout fleet: every episode of the served policy is routed to one of them, and each loads every new checkpoint ({url, kind}). Absent: the policy client's baseUrl and serverKind, a fleet of one.",
      ),
    fleet: FleetConfig.prefault({}).describe('How the rollout fleet publishes, ejects and brings back servers.'),
    user: UserSimulatorConfig.default({ kind: 'scripted' }),
    judge: JudgeConfig.optional(),
    limits: EpisodeLimits.prefault({}),
    tasks: z.object({ train: TaskSource, eval: TaskSource }).strict(),
    probing: ProbingConfig.prefault({}),
    selection: SelectionConfig.prefault({}),
    referenceProbe: ReferenceProbeConfig.optional().describe(
      'Probe the candidates with a reference policy too, and keep in the pool only tasks it solved at least once (the solvability gate; gate: false records and reports it only). Absent: no reference probe.',
    ),
    reprobe: ReprobeConfig.optional().describe(
      'Re-probe the candidates with the current policy every N steps and swap out pool tasks that became solved or stayed hopeless, for candidates now of middle difficulty. Absent: the pool stays frozen.',
    ),
    async: z
      .object({
        maxStaleness: Count.default(0).describe(
          "K: the update that makes version u trains only on turns sampled by versions >= u - 1 - K. 0: the synchronous step (rollouts, then update and publish). K >= 1: step n+1's rollouts run while step n trains and publishes (core/policy-versions.ts).",
        ),
      })
      .strict()
      .prefault({})
      .describe('Asynchronous steps: how far behind the policy that trains the policy that samples may be.'),
    steps: Positive.describe('GRPO steps to run (changeable while running with the setMaxSteps update).'),
    groupsPerStep: Positive.default(18),
    rolloutsPerGroup: z.number().int().min(2).default(8),
    maxReplacementRounds: Count.default(3).describe(
      'How many times each of the G group slots may be replaced (zero-variance) or refilled (lost to infrastructure) by a fresh task.',
    ),
    extraGroupsInFlight: Count.default(0).describe(
      'Run this many groups beyond groupsPerStep to hide stragglers; the batch is still the first G usable groups in draw order, and the surplus is cancelled.',
    ),
    allowPartialUpdate: z
      .boolean()
      .default(false)
      .describe('Update on fewer informative groups than groupsPerStep instead of failing the step.'),
    minInformativeGroups: Positive.optional().describe(
      'With allowPartialUpdate: the fewest informative groups an update may use (default 1).',
    ),
    stopWhenPoolExhausted: z
      .boolean()
      .default(false)
      .describe(
        'When a step is short of informative groups and lost none to infrastructure (the policy solves or fails every task it drew: the pool is exhausted), end training after the last finished step and run the final evaluation instead of waiting for replay-step. The failed step stays recorded (failedStep).',
      ),
    keepZeroVarianceGroups: z
      .boolean()
      .default(false)
      .describe(
        'Plain GRPO: train on groups whose rewards are all equal (their advantages are 0) instead of replacing them (DAPO). For pipeline checks with a policy too weak to vary.',
      ),
    update: UpdateConfig,
    evaluation: z
      .object({
        everySteps: Positive.default(5).describe(
          'Evaluate the trained policy every E steps (and always after the last one).',
        ),
        k: Positive.default(8).describe('Trials per eval task.'),
        window: Positive.default(32).describe('Evaluation episodes in flight at most.'),
      })
      .strict()
      .prefault({}),
    episodes: EpisodeRetryConfig.prefault({}),
    budgets: z
      .object({
        maxEpisodes: Positive.optional().describe(
          'Stop (after the step in progress) once the campaign has run this many episodes.',
        ),
        maxCostUsd: z
          .number()
          .positive()
          .optional()
          .describe('Stop (after the step in progress) once the episodes cost this much.'),
      })
      .strict()
      .prefault({}),
    costs: ComputeCosts.prefault({}).describe(
      "The price of the training's own compute, for the cost per dependable task with the training in it (the report and `finalstate campaign status`).",
    ),
    continueAsNewEverySteps: Positive.default(10).describe(
      'Start a fresh history every N steps (also when Temporal suggests it).',
    ),
    episodesPerChildRun: Positive.default(300).describe(
      'A probe or evaluation child starts a fresh history after this many episodes (also when its history passes 4,000 events or 1 MiB, or Temporal suggests it), so every workflow task stays small.',
    ),
    seed: z.number().int().default(0).describe('Seed of task sampling and episode sampling.'),
    tracking: TrackingConfig.prefault({}).describe(
      'Step and evaluation metrics to TensorBoard (default) and Weights & Biases.',
    ),
    taskQueues: z
      .object({ control: z.string().min(1), episodes: z.string().min(1), gpu: z.string().min(1) })
      .strict()
      .optional()
      .describe("Default: the stack config's task queues."),
  })
  .strict();

/** A campaign config (a file given to `finalstate campaign start`), with the checks across its fields. */
export const CampaignConfig = CampaignConfigFields.superRefine((config, ctx) => {
  if (config.policy.kind === 'served' && config.policy.servers !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['policy', 'servers'],
      message: 'a campaign routes its episodes to policyServers: list the rollout servers there, not in policy.servers',
    });
  const k = config.update.loss.passAtK;
  if (k !== null && k > config.rolloutsPerGroup)
    ctx.addIssue({
      code: 'custom',
      path: ['update', 'loss', 'passAtK'],
      message: `update.loss.passAtK is ${k}, above rolloutsPerGroup ${config.rolloutsPerGroup}: a group has no subset of ${k} episodes`,
    });
  if (k !== null && config.update.truncationPenalty > 0)
    ctx.addIssue({
      code: 'custom',
      path: ['update', 'truncationPenalty'],
      message: `update.truncationPenalty is ${config.update.truncationPenalty} with update.loss.passAtK ${k}: the pass@k advantage needs 0/1 training rewards; set one of them to 0 or null`,
    });
  if (k !== null && config.update.loss.unlikeliness > 0)
    ctx.addIssue({
      code: 'custom',
      path: ['update', 'loss', 'unlikeliness'],
      message: `update.loss.unlikeliness is ${config.update.loss.unlikeliness} with update.loss.passAtK ${k}: each reshapes the group's advantages its own way; set one of them to 0 or null`,
    });
  if (config.update.loss.klReference === 'base' && config.update.loss.klCoef === 0)
    ctx.addIssue({
      code: 'custom',
      path: ['update', 'loss', 'klReference'],
      message:
        "update.loss.klReference is 'base' with klCoef 0: the KL to the base policy would weigh nothing; set klCoef above 0",
    });
  const servers = config.policyServers?.length ?? (config.policy.kind === 'served' ? 1 : 0);
  if (servers > 0 && config.fleet.minServers > servers)
    ctx.addIssue({
      code: 'custom',
      path: ['fleet', 'minServers'],
      message: `fleet.minServers is ${config.fleet.minServers}, above the ${servers} rollout server${servers === 1 ? '' : 's'} ${config.policyServers ? 'policyServers lists' : 'of policy.client.baseUrl (no policyServers)'}: no publish could ever succeed`,
    });
});
export type CampaignConfig = z.infer<typeof CampaignConfig>;
export type CampaignConfigInput = z.input<typeof CampaignConfig>;

export const CampaignPhase = z.enum([
  'probe',
  'select',
  'base-eval',
  'train',
  'eval',
  'reprobe',
  'step-failed',
  'done',
  'stopped',
]);
export type CampaignPhase = z.infer<typeof CampaignPhase>;

/** Where the next GRPO step draws its tasks: epoch e is the pool shuffled with a seed derived from e. */
export const SamplerState = z.object({ epoch: Count, cursor: Count }).strict();
export type SamplerState = z.infer<typeof SamplerState>;

/** Counts of episodes the campaign has run; infraFailed are attempts whose group was refilled or row excluded. */
export const EpisodeCounts = z.object({ done: Count, infraFailed: Count }).strict();
export type EpisodeCounts = z.infer<typeof EpisodeCounts>;

/** A task that left or joined the pool at a re-probe, with the re-probe's Jeffreys posterior. */
export const PoolChange = PoolRecord.pick({
  taskId: true,
  domain: true,
  k: true,
  n: true,
  bin: true,
  mean: true,
  interval: true,
});
export type PoolChange = z.infer<typeof PoolChange>;

/** One version of the training pool: the frozen one (version 0) or the result of a re-probe. */
export const PoolVersion = z
  .object({
    version: Count.describe('0 for the frozen pool, then one more per re-probe (whether or not it swapped a task).'),
    step: Count.describe('The step after which the pool took this version (0: frozen before training).'),
    size: Count.describe('Tasks in the pool of this version.'),
    probeResultSet: z.string().describe('The probe whose rows decided this version.'),
    uri: z.string().describe('Version 0: the FrozenPool; later ones: the PoolSwap (schemas/results.ts).'),
    left: z.array(PoolChange).describe('Pool tasks whose re-probe fell outside the kept bins, swapped out.'),
    entered: z.array(PoolChange).describe('Candidates whose re-probe fell in the kept bins, swapped in.'),
    unreplaced: Count.describe('Pool tasks outside the kept bins that stayed for want of candidates.'),
  })
  .strict();
export type PoolVersion = z.infer<typeof PoolVersion>;

/** Everything a campaign carries into a continued run (continueAsNew): small by construction. */
export const CampaignState = z
  .object({
    phase: CampaignPhase,
    step: Count.describe('The last completed step.'),
    maxSteps: Positive,
    probeResultSet: z.string().optional(),
    referenceResultSet: z.string().optional().describe("The reference probe's rows (referenceProbe), when it ran."),
    droppedByReference: Count.optional().describe(
      'Candidates of the kept bins that the solvability gate dropped (the reference never solved them); with referenceProbe.gate false, how many it would have dropped.',
    ),
    solvedByReference: Count.optional().describe('Candidates the reference solved at least once.'),
    referenceGated: z
      .boolean()
      .optional()
      .describe('Whether the reference probe gates the pool (referenceProbe.gate), when it ran.'),
    pool: z
      .array(z.string())
      .optional()
      .describe("Ids of the pool's tasks: the frozen pool, or with reprobe its latest version."),
    trainingDomains: z
      .array(z.string())
      .optional()
      .describe(
        'Domains GRPO trains on: tasks.train.domains, else the domains of the frozen pool; evaluation domains outside them are out-of-domain.',
      ),
    poolUri: z.string().optional().describe('The frozen pool (FrozenPool) chosen before training.'),
    poolHistory: z
      .array(PoolVersion)
      .optional()
      .describe('With reprobe: every version of the pool, the frozen one first.'),
    sampler: SamplerState,
    episodes: EpisodeCounts,
    costUsd: z.number().nonnegative(),
    costs: ComputeCosts.optional().describe(
      "The campaign's costs setting, carried for `campaign status` and the report; absent in a campaign started before it existed (the defaults then).",
    ),
    steps: z.array(StepSummary).describe('One summary per completed step.'),
    evalPoints: z.array(EvalPoint),
    evalResultSets: z.array(z.object({ step: Count, resultSet: z.string() }).strict()),
    lastMetrics: z.record(z.string(), z.number()).nullable(),
    policyVersion: z.string().optional(),
    checkpointUri: z.string().optional(),
    paused: z.boolean(),
    stopAfterStep: Count.nullable(),
    failedStep: z.object({ step: Positive, message: z.string() }).strict().nullable(),
    replays: Count.describe('Steps re-run after a failure (their child ids end in -replay-<n>).'),
    runs: Positive.describe('1 + the number of continueAsNew so far.'),
  })
  .strict();
export type CampaignState = z.infer<typeof CampaignState>;

/** What the `status` query returns (and `finalstate campaign status --json` prints). */
export const CampaignStatus = z
  .object({
    campaignId: z.string(),
    phase: CampaignPhase,
    step: Count,
    maxSteps: Positive,
    poolSize: Count.nullable(),
    poolVersion: z
      .object({ version: Count, step: Count, left: Count, entered: Count })
      .strict()
      .optional()
      .describe('With reprobe: the current pool version, the step it was made after and how many tasks it swapped.'),
    solvabilityGate: z
      .object({
        referenceResultSet: z.string(),
        applied: z.boolean().describe('false: referenceProbe.gate is off; the reference probe is recorded only.'),
        dropped: Count.nullable(),
        solved: Count.nullable(),
      })
      .strict()
      .optional()
      .describe(
        "With referenceProbe: the reference probe's result set, how many candidates the gate dropped (or would drop, when not applied) and how many the reference solved (null before selection).",
      ),
    episodes: EpisodeCounts,
    lastMetrics: z.record(z.string(), z.number()).nullable(),
    paused: z.boolean(),
    stopAfterStep: Count.nullable(),
    failedStep: z.object({ step: Positive, message: z.string() }).strict().nullable(),
    currentChild: z
      .string()
      .nullable()
      .describe('Workflow id of the child running now; its `progress` query has live counts.'),
    run: Positive,
    costUsd: z.number().nonnegative(),
  })
  .strict();
export type CampaignStatus = z.infer<typeof CampaignStatus>;

/** Live counts of a running child (probe, evaluation, grpoStep): its `progress` query. */
export const ChildProgress = z
  .object({
    kind: z.enum(['probe', 'evaluation', 'grpoStep']),
    planned: Count.describe('Episodes planned so far (grows with replacements and adaptive probing).'),
    done: Count,
    inFlight: Count,
    infraFailed: Count,
    unit: z.enum(['tasks', 'episodes', 'groups']).optional().describe('What finished and total count.'),
    finished: Count.optional().describe(
      'Probe: tasks whose probing is resolved; evaluation: episodes done; grpoStep: groups ready for the update.',
    ),
    total: Count.optional().describe(
      'Probe: tasks probed; evaluation: episodes planned (tasks × k); grpoStep: groups the update needs.',
    ),
    startedAt: z
      .number()
      .optional()
      .describe('Workflow time (ms since the epoch) the child started (first run), for the estimate of time left.'),
  })
  .strict();
export type ChildProgress = z.infer<typeof ChildProgress>;

/** `finalstate eval CONFIG`: one policy on one split, k trials per task, outside any campaign. */
export const EvaluationConfig = z
  .object({
    evaluationId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'evaluation ids are letters, digits and . _ -'),
    policy: PolicyRef,
    user: UserSimulatorConfig.default({ kind: 'scripted' }),
    judge: JudgeConfig.optional(),
    limits: EpisodeLimits.prefault({}),
    tasks: TaskSource,
    trainingDomains: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Domains the evaluated policy was trained on: the metrics are then split into in-domain and out-of-domain.',
      ),
    k: Positive.default(8),
    window: Positive.default(32),
    episodes: EpisodeRetryConfig.prefault({}),
    seed: z.number().int().default(0),
    taskQueues: z
      .object({ control: z.string().min(1), episodes: z.string().min(1), gpu: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();
export type EvaluationConfig = z.infer<typeof EvaluationConfig>;

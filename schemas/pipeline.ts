import { z } from 'zod';
import { EpisodeCounts, EpisodeRetryConfig, FleetConfig, SamplerState, TaskSource, UpdateConfig } from './campaign.js';
import { JudgeConfig, PolicyServerRef, UserSimulatorConfig } from './clients.js';
import { EpisodeLimits, PolicyRef } from './episode.js';
import { StepSummary } from './results.js';

/**
 * Payloads of the pipeline's workflows (workflows/*.ts import these as types only, so zod stays out of the
 * workflow bundle). Every field is an id, a URI, a config or a small summary.
 */

const Count = z.number().int().nonnegative();

/** What a workflow needs to know about a task to schedule it and to write an error row for it. */
export const TaskInfo = z
  .object({
    taskId: z.string().min(1),
    domain: z.string().min(1),
    split: z.enum(['train', 'eval']),
    tags: z.array(z.string()),
  })
  .strict();
export type TaskInfo = z.infer<typeof TaskInfo>;

export const TaskQueues = z
  .object({ control: z.string().min(1), episodes: z.string().min(1), gpu: z.string().min(1) })
  .strict();
export type TaskQueues = z.infer<typeof TaskQueues>;

/** Everything an episode request needs besides the task, and how its activity is retried. */
export const EpisodeSettings = z
  .object({
    policy: PolicyRef,
    user: UserSimulatorConfig,
    judge: JudgeConfig.optional(),
    limits: EpisodeLimits,
    retry: EpisodeRetryConfig,
    queues: TaskQueues,
    seed: z.number().int(),
  })
  .strict();
export type EpisodeSettings = z.infer<typeof EpisodeSettings>;

export const ProbeInput = z
  .object({
    campaignId: z.string().min(1),
    resultSet: z.string().min(1),
    source: TaskSource,
    n: z.number().int().positive(),
    nMax: z.number().int().positive(),
    adaptive: z.boolean(),
    threshold: z.number().gt(0).max(1),
    edges: z.array(z.number()),
    window: z.number().int().positive(),
    episodesPerRun: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Renew the history (continueAsNew) after this many episodes.'),
    step: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('A re-probe: the training step of the probed policy (absent: the base policy, step 0).'),
    settings: EpisodeSettings,
  })
  .strict();
export type ProbeInput = z.infer<typeof ProbeInput>;

export const ProbeResult = z
  .object({
    resultSet: z.string(),
    tasks: Count,
    episodes: EpisodeCounts,
    stoppedEarly: Count.describe('Tasks the adaptive rule stopped before nMax.'),
    malformed: z.array(z.string()).describe('Tasks whose episode reported a malformed task; they have no rows.'),
    costUsd: z.number().nonnegative(),
  })
  .strict();
export type ProbeResult = z.infer<typeof ProbeResult>;

export const EvaluationInput = z
  .object({
    campaignId: z.string().min(1),
    resultSet: z.string().min(1),
    step: Count.describe('Training step of the evaluated policy (0 = base).'),
    source: TaskSource,
    k: z.number().int().positive(),
    window: z.number().int().positive(),
    episodesPerRun: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Renew the history (continueAsNew) after this many episodes.'),
    trainingDomains: z
      .array(z.string().min(1))
      .optional()
      .describe('Domains the evaluated policy was trained on: metrics are split into in-domain and out-of-domain.'),
    settings: EpisodeSettings,
  })
  .strict();
export type EvaluationInput = z.infer<typeof EvaluationInput>;

/** Headline metrics of one evaluation (the full report is at metricsUri). */
export const EvaluationSummary = z
  .object({
    tasks: Count,
    attempts: Count,
    pass1: z.number(),
    pass1Low: z.number(),
    pass1High: z.number(),
    passAtK: z.number(),
    passedKK: Count,
    excludedInfra: Count,
    byDistribution: z
      .partialRecord(
        z.enum(['in-domain', 'out-of-domain']),
        z.object({ tasks: Count, pass1: z.number(), passAtK: z.number(), passedKK: Count }).strict(),
      )
      .optional()
      .describe('Headlines in-domain and out-of-domain, when the training domains are known.'),
    byDomain: z
      .record(z.string(), z.object({ tasks: Count, pass1: z.number(), passAtK: z.number(), passedKK: Count }).strict())
      .optional()
      .describe('The same headlines per domain.'),
  })
  .strict();
export type EvaluationSummary = z.infer<typeof EvaluationSummary>;

export const EvaluationResult = z
  .object({
    resultSet: z.string(),
    step: Count,
    k: z.number().int().positive(),
    episodes: EpisodeCounts,
    malformed: z.array(z.string()),
    metrics: EvaluationSummary,
    metricsUri: z.string(),
    costUsd: z.number().nonnegative(),
  })
  .strict();
export type EvaluationResult = z.infer<typeof EvaluationResult>;

/** The asynchronous part of a step's input (campaign.async.maxStaleness >= 1). */
export const AsyncStep = z
  .object({
    maxStaleness: z.number().int().positive().describe('campaign.async.maxStaleness (K).'),
    minVersion: Count.describe(
      'The oldest policy version whose turns this step trains on (core/policy-versions.ts oldestUsableVersion): a group with an older turn is dropped and refilled.',
    ),
    publishedVersion: Count.describe(
      'The newest version published when the step started (previousCheckpointUri holds it): what the fleet is kept on while the step collects, since a later publish may land meanwhile.',
    ),
    awaitPrevious: z
      .boolean()
      .describe(
        "The previous step was still training when this one started: wait for the campaign's previousStepDone signal before the update.",
      ),
  })
  .strict();
export type AsyncStep = z.infer<typeof AsyncStep>;

export const GrpoStepInput = z
  .object({
    campaignId: z.string().min(1),
    step: z.number().int().positive(),
    taskSet: z.string().min(1),
    pool: z.array(z.string().min(1)).min(1),
    sampler: SamplerState,
    groups: z.number().int().positive(),
    rollouts: z.number().int().min(2),
    maxReplacementRounds: Count,
    allowPartialUpdate: z.boolean(),
    minInformativeGroups: z.number().int().positive(),
    keepZeroVarianceGroups: z
      .boolean()
      .optional()
      .describe('Train on zero-variance groups instead of replacing them (absent: replace).'),
    extraGroupsInFlight: Count.optional().describe(
      'Groups run beyond G to hide stragglers; cancelled once the batch is settled (absent: 0).',
    ),
    update: UpdateConfig,
    neededExports: z
      .array(z.number().int().positive())
      .optional()
      .describe('Steps whose exports the campaign still needs (served, evaluated): checkpoint retention keeps them.'),
    policyServers: z.array(PolicyServerRef),
    fleet: FleetConfig.optional().describe(
      'The fleet rules (absent in inputs recorded before the fleet: every server must take the publish, nothing reconciles).',
    ),
    previousCheckpointUri: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The checkpoint the previous step published (absent before step 2: the base model), which a server whose reload fails is pointed back to.',
      ),
    async: AsyncStep.optional().describe(
      'Asynchronous steps (campaign.async.maxStaleness >= 1): the step signals the campaign once its rollouts are collected, and trains only after the previous step published. Absent: the synchronous step.',
    ),
    pipeline: AsyncStep.optional().describe(
      '`async` as inputs recorded before it was named so carry it (a running campaign resumed by newer workers).',
    ),
    settings: EpisodeSettings,
  })
  .strict();
export type GrpoStepInput = z.infer<typeof GrpoStepInput>;

export const PolicyUpdateMetricsSummary = z.record(z.string(), z.number());

/** What a GRPO step returns: a StepSummary plus the counts and references the campaign carries on. */
export const GrpoStepResult = z
  .object({
    summary: StepSummary,
    rewards: z
      .array(z.array(z.union([z.literal(0), z.literal(1)])))
      .describe('Rewards of the groups the update used, in group order.'),
    groupsUsed: Count,
    zeroVarianceGroups: Count,
    replacements: Count.describe('Groups replaced because their rewards were all equal (DAPO dynamic sampling).'),
    refills: Count.describe('Groups discarded and refilled because an episode still failed after its retries.'),
    cancelledGroups: Count.optional().describe(
      'Surplus groups (extraGroupsInFlight) cancelled once the batch was settled.',
    ),
    staleGroups: Count.optional().describe(
      'Asynchronous steps: groups dropped and refilled because a turn was sampled by a version older than the window.',
    ),
    staleByTask: z
      .record(z.string(), Count)
      .optional()
      .describe('Those groups by task: dropping stale groups can starve slow (often harder) tasks.'),
    malformed: z.array(z.string()),
    episodes: EpisodeCounts,
    updateMetrics: PolicyUpdateMetricsSummary,
    batchUri: z.string(),
    checkpointUri: z.string(),
    policyVersion: z.string(),
    sampler: SamplerState,
    costUsd: z.number().nonnegative(),
  })
  .strict();
export type GrpoStepResult = z.infer<typeof GrpoStepResult>;

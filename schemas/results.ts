import { z } from 'zod';
import { Split } from './task.js';

const Count = z.number().int().nonnegative();
const Fraction = z.number().min(0).max(1);
const Usd = z.number().nonnegative().finite();

export const Role = z.enum(['agent', 'user', 'judge']);
export type Role = z.infer<typeof Role>;
export const roles = Role.options;

/** Tokens one role spent in one episode. `inputTokens` includes `cachedInputTokens` (OpenAI's convention). */
export const TokenUsage = z
  .object({
    inputTokens: Count,
    cachedInputTokens: Count.describe('The part of inputTokens served from the prompt cache.'),
    outputTokens: Count,
  })
  .strict()
  .refine((u) => u.cachedInputTokens <= u.inputTokens, { message: 'cachedInputTokens exceeds inputTokens' });
export type TokenUsage = z.infer<typeof TokenUsage>;

export const RoleUsage = z.object({ agent: TokenUsage, user: TokenUsage, judge: TokenUsage }).strict();
export type RoleUsage = z.infer<typeof RoleUsage>;

/** Why an episode has no task outcome. Such a row is never a task failure. */
export const EpisodeError = z.enum(['infra', 'grader']);
export type EpisodeError = z.infer<typeof EpisodeError>;

/** One episode outcome: a line of a results JSONL file (written by evaluation and probing, read by the CLI). */
export const ResultRow = z
  .object({
    taskId: z.string().min(1),
    domain: z.string().min(1),
    split: Split,
    trial: Count.describe('0-based attempt number of this task in the result set.'),
    tags: z.array(z.string().min(1)).default([]),
    reward: z.union([z.literal(0), z.literal(1)]).describe('Ignored when error is set.'),
    error: EpisodeError.nullable().describe(
      'Set when the episode failed for a reason that is not the task: excluded from success counts.',
    ),
    usage: RoleUsage,
    costUsd: Usd.describe('Cost of the episode in US dollars, all roles together.'),
    campaignId: z.string().min(1).optional(),
    step: Count.optional().describe('Training step of the policy that ran the episode (0 = base policy).'),
    policyVersion: z.string().min(1).optional(),
  })
  .strict();
export type ResultRow = z.infer<typeof ResultRow>;
export type ResultRowInput = z.input<typeof ResultRow>;

/** US dollars per million tokens. */
export const ModelPrice = z.object({ input: Usd, cachedInput: Usd, output: Usd }).strict();
export type ModelPrice = z.infer<typeof ModelPrice>;

/** Price per model name (the name the endpoint reports or the config gives). */
export const ModelPrices = z.record(z.string().min(1), ModelPrice);
export type ModelPrices = z.infer<typeof ModelPrices>;

/** What a set of episodes spent: how many rows (errored ones included: they were paid for), their costUsd, their tokens. */
export const Spend = z.object({ episodes: Count, costUsd: Usd, usage: RoleUsage }).strict();
export type Spend = z.infer<typeof Spend>;

/** The spend of one of a campaign's result sets (storage/results.ts campaignSpend). */
export const ResultSetSpend = Spend.extend({ resultSet: z.string().min(1) }).strict();
export type ResultSetSpend = z.infer<typeof ResultSetSpend>;

/** Prices per model and the model each role used. */
export const PriceTable = z
  .object({
    models: ModelPrices,
    roles: z.object({ agent: z.string().min(1), user: z.string().min(1), judge: z.string().min(1) }).strict(),
  })
  .strict()
  .superRefine((table, ctx) => {
    for (const role of roles) {
      if (!(table.roles[role] in table.models)) {
        ctx.addIssue({
          code: 'custom',
          path: ['roles', role],
          message: `model ${JSON.stringify(table.roles[role])} has no price in models`,
        });
      }
    }
  });
export type PriceTable = z.infer<typeof PriceTable>;

/** Bin edges over [0,1]: strictly increasing, from 0 to 1. Bin i is [edges[i], edges[i+1]), the last one closed. */
/** Default difficulty bins: [0,.08) [.08,.4) [.4,.6) [.6,.9) [.9,1]. */
export const DEFAULT_EDGES: readonly number[] = [0, 0.08, 0.4, 0.6, 0.9, 1];
/** Default kept bins: the three middle ones. */
export const DEFAULT_KEEP: readonly number[] = [1, 2, 3];

export const BinEdges = z
  .array(Fraction)
  .min(2)
  .refine((e) => e[0] === 0 && e[e.length - 1] === 1, { message: 'bin edges must start at 0 and end at 1' })
  .refine((e) => e.every((x, i) => i === 0 || x > e[i - 1]!), { message: 'bin edges must be strictly increasing' });

export const SelectionReason = z.enum([
  'kept',
  'no-outcome',
  'bin-not-kept',
  'unsolved-by-reference',
  'absent-from-reference',
  'over-cap',
]);
export type SelectionReason = z.infer<typeof SelectionReason>;

/** The difficulty estimate of one probed task and what selection did with it. */
export const PoolRecord = z
  .object({
    taskId: z.string().min(1),
    domain: z.string().min(1),
    tags: z.array(z.string()),
    k: Count.describe('Successes in the probe.'),
    n: Count.describe('Probe episodes with an outcome (errors excluded).'),
    masses: z.array(Fraction).describe('Jeffreys posterior mass in each bin.'),
    bin: Count.describe('Index of the bin with the most mass.'),
    mean: Fraction.describe('Posterior mean (k + 1/2) / (n + 1).'),
    interval: z.tuple([Fraction, Fraction]).describe('95% equal-tailed Jeffreys interval.'),
    kept: z.boolean(),
    reason: SelectionReason,
  })
  .strict();
export type PoolRecord = z.infer<typeof PoolRecord>;

/** A frozen training pool: the rule that chose it and every probed task's record. */
export const FrozenPool = z
  .object({
    edges: BinEdges,
    keep: z.array(Count),
    solvabilityFilter: z.boolean(),
    max: Count.nullable(),
    seed: z.number().int(),
    records: z.array(PoolRecord),
    pool: z.array(z.string()).describe('Ids of the kept tasks, sorted.'),
  })
  .strict();
export type FrozenPool = z.infer<typeof FrozenPool>;

/** A re-probe's pool swap (`<campaignId>/pool-step-<n>.json`): the pool before and after, and why. */
export const PoolSwap = z
  .object({
    step: z.number().int().positive().describe('The step whose policy was re-probed.'),
    probeResultSet: z.string(),
    before: z.array(z.string()),
    pool: z.array(z.string()).describe('Ids of the pool after the swap, sorted.'),
    left: z.array(PoolRecord).describe('Pool tasks outside the kept bins, swapped out (most confident first).'),
    entered: z.array(PoolRecord).describe('Candidates in the kept bins, swapped in (seeded, stratified sample).'),
    unreplaced: z.array(PoolRecord).describe('Pool tasks outside the kept bins that stayed for want of candidates.'),
    selection: FrozenPool.describe('The selection rule (no cap) on the re-probe: every re-probed task.'),
  })
  .strict();
export type PoolSwap = z.infer<typeof PoolSwap>;

/** What one GRPO step reports, for the training curves. */
export const StepSummary = z
  .object({
    step: z.number().int().positive(),
    meanReward: Fraction,
    informativeFraction: Fraction.describe('Fraction of sampled groups whose rewards were not all equal.'),
    loss: z.number().finite(),
    clipFraction: Fraction,
    optimizerSteps: Count.optional().describe('AdamW steps the update took (one per mini-batch).'),
    truncatedTurns: Count.optional().describe('Turns in the batch cut off by the per-turn token limit.'),
    maskedTokens: Count.optional().describe('Their loss tokens, left out of the loss under update.maskTruncatedTurns.'),
    replacements: Count.optional(),
    infraFailures: Count.optional(),
    refills: Count.optional().describe(
      'Groups discarded for an episode that failed after its retries, and drawn again.',
    ),
    approxKl: z.number().finite().optional(),
    tokens: Count.optional().describe('Loss tokens of the update.'),
    wallSeconds: z
      .object({
        rollouts: z.number().nonnegative(),
        batch: z.number().nonnegative(),
        update: z.number().nonnegative(),
        publish: z.number().nonnegative(),
        waitForPrevious: z
          .number()
          .nonnegative()
          .optional()
          .describe('Asynchronous steps: from the rollouts collected to the previous step published.'),
        total: z.number().nonnegative(),
      })
      .strict()
      .optional()
      .describe('Wall time of each phase of the step (workflow time).'),
    staleGroups: Count.optional().describe(
      'Asynchronous steps: groups dropped and refilled for a turn older than the staleness window.',
    ),
    maxStaleness: Count.optional().describe('Asynchronous steps: campaign.async.maxStaleness when the step ran.'),
    stalenessMean: z.number().nonnegative().optional().describe('PolicyUpdateMetrics.stalenessMean of the update.'),
    stalenessMax: Count.optional().describe('PolicyUpdateMetrics.stalenessMax.'),
    stalenessHistogram: z
      .array(Count)
      .optional()
      .describe('Loss tokens by lag in versions (PolicyUpdateResult.stalenessHistogram): entry i, i versions behind.'),
    samplerDriftMean: z.number().nonnegative().optional().describe('PolicyUpdateMetrics.samplerDriftMean.'),
    samplerDriftMax: z.number().nonnegative().optional().describe('PolicyUpdateMetrics.samplerDriftMax.'),
    isWeightMean: z
      .number()
      .nonnegative()
      .optional()
      .describe('PolicyUpdateMetrics.isWeightMean (offPolicyCorrection tis).'),
    isWeightMax: z.number().nonnegative().optional().describe('PolicyUpdateMetrics.isWeightMax.'),
    isTruncatedFraction: Fraction.optional().describe('PolicyUpdateMetrics.isTruncatedFraction.'),
    policyVersion: z.string().optional(),
  })
  .strict();
export type StepSummary = z.infer<typeof StepSummary>;

/** pass@1 of one evaluation, at a training step (0 = base policy). */
export const EvalPoint = z
  .object({
    step: Count,
    pass1: Fraction,
    interval: z.tuple([Fraction, Fraction]).optional(),
    label: z.string().optional(),
  })
  .strict();
export type EvalPoint = z.infer<typeof EvalPoint>;

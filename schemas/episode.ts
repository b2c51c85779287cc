import { z } from 'zod';
import { JudgeConfig, PolicyClientConfig, UserSimulatorConfig } from './clients.js';
import { ResultRow } from './results.js';

/** Which policy drives the agent: a served model (token in, token out), or the task's golden calls (oracle). */
export const PolicyRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('served'), client: PolicyClientConfig, version: z.string().min(1).optional() }).strict(),
  z.object({ kind: z.literal('oracle') }).strict(),
]);
export type PolicyRef = z.infer<typeof PolicyRef>;

/** Limits of one conversation; running out of one is a task outcome, never an error. */
export const EpisodeLimits = z
  .object({
    maxAgentTurns: z.number().int().positive().default(12),
    maxUserTurns: z.number().int().positive().default(6),
    maxTotalTokens: z.number().int().positive().default(16_384),
    maxContextTokens: z.number().int().positive().default(8_192),
    timeoutMs: z.number().int().positive().default(300_000),
  })
  .strict();
export type EpisodeLimits = z.infer<typeof EpisodeLimits>;

/** The payload of one `runEpisode` activity: ids and configs only; the task is read from its task set. */
export const EpisodeRequest = z
  .object({
    episodeId: z.string().min(1).describe('Deterministic, e.g. "<campaignId>/step-3/g2-t5": a retried attempt reattaches to the same backend.'),
    taskId: z.string().min(1),
    taskSet: z.string().min(1).describe('Task-set manifest path or URI.'),
    trial: z.number().int().nonnegative(),
    campaignId: z.string().min(1).optional(),
    step: z.number().int().nonnegative().optional(),
    group: z.number().int().nonnegative().optional(),
    policy: PolicyRef,
    user: UserSimulatorConfig.default({ kind: 'scripted' }),
    judge: JudgeConfig.optional(),
    limits: EpisodeLimits.default({ maxAgentTurns: 12, maxUserTurns: 6, maxTotalTokens: 16_384, maxContextTokens: 8_192, timeoutMs: 300_000 }),
    seed: z.number().int().describe('Sampling seed of this episode.'),
  })
  .strict();
export type EpisodeRequest = z.infer<typeof EpisodeRequest>;
export type EpisodeRequestInput = z.input<typeof EpisodeRequest>;

export const FinishReason = z.enum(['agent_done', 'user_done', 'max_turns', 'max_tokens', 'context_overflow', 'timeout']);
export type FinishReason = z.infer<typeof FinishReason>;

/** What `runEpisode` returns: the result row plus references to the big data (never the data itself). */
export const EpisodeOutcome = ResultRow.extend({
  episodeId: z.string().min(1),
  finishReason: FinishReason,
  trajectoryUri: z.string().min(1).optional().describe('Token trajectory in the artifact store (served policies only).'),
  trainable: z.boolean().describe('False when the trajectory drifted from the rendered conversation or has no sampled token.'),
}).strict();
export type EpisodeOutcome = z.infer<typeof EpisodeOutcome>;

import { z } from 'zod';
import {
  ChatEndpointConfig,
  JudgeConfig,
  noDuplicateServers,
  PolicyClientConfig,
  RolloutServer,
  UserSimulatorConfig,
} from './clients.js';
import { Conversation } from './conversation.js';
import { GradeReport } from './grading.js';
import { ResultRow } from './results.js';
import { ToolCall } from './task.js';
import { InterpretedBy, RubricVerdict } from './runtime.js';
import { TrajectoryDrift } from './trajectory.js';

/**
 * Which policy drives the agent: a served model (token in, token out), a model behind an OpenAI-compatible chat API
 * (the provider renders and parses: no token trajectory, so never trained on; a reference probe or an evaluation), or
 * the task's golden calls (oracle).
 */
export const PolicyRef = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('served'),
      client: PolicyClientConfig,
      version: z.string().min(1).optional(),
      minVersion: z
        .string()
        .regex(/^\d+$/, 'a step number')
        .optional()
        .describe(
          'With version: the oldest policy version the episode accepts (asynchronous steps: the window [minVersion, version]); absent: exactly version.',
        ),
      checkpointUri: z
        .string()
        .min(1)
        .optional()
        .describe(
          'With version: the checkpoint it was published from, whose served-fingerprint.json a vLLM client checks when it cannot read /weight_info.',
        ),
      adapterPrefix: z
        .string()
        .min(1)
        .optional()
        .describe(
          "A LoRA campaign's policy: version n >= 1 is served as the adapter named <adapterPrefix><n> beside the base model (version 0); each completion names the newest adapter of the window the server has loaded, which pins its version.",
        ),
      servers: z
        .array(RolloutServer)
        .min(1)
        .superRefine(noDuplicateServers)
        .optional()
        .describe(
          "The rollout fleet: each episode is routed to one of them for its whole life (runtime/fleet/router.ts), with the client's model, key and sampling. Absent: client.baseUrl and client.serverKind alone. A campaign fills it from its policyServers.",
        ),
    })
    .strict(),
  z
    .object({
      kind: z.literal('oracle'),
      calls: z
        .array(ToolCall)
        .optional()
        .describe("Tool calls played instead of the task's golden ones (a demonstration's rule-breaking path)."),
    })
    .strict(),
  z.object({ kind: z.literal('chat'), endpoint: ChatEndpointConfig }).strict(),
]);
export type PolicyRef = z.infer<typeof PolicyRef>;

/** The rollout fleet of a served policy: its servers, else its client's server alone. */
export function fleetOf(policy: Extract<PolicyRef, { kind: 'served' }>): RolloutServer[] {
  return policy.servers ?? [{ url: policy.client.baseUrl, kind: policy.client.serverKind }];
}

/** Limits of one conversation; running out of one is a task outcome, never an error. */
export const EpisodeLimits = z
  .object({
    maxAgentTurns: z.number().int().positive().default(12),
    maxUserTurns: z.number().int().positive().default(6),
    maxTotalTokens: z.number().int().positive().default(16_384),
    maxContextTokens: z.number().int().positive().default(8_192),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .default(300_000)
      .describe(
        "The agent's clock (finish reason timeout): time in its tool calls, a call still running when it runs out stopped. Waits on the policy server, the user simulator and the judge are not on it; each has its client's per-call timeout, past which it is an infrastructure failure.",
      ),
    maxToolResultChars: z
      .number()
      .int()
      .positive()
      .default(16_000)
      .describe(
        'A longer tool result is cut to this many characters, with a marker the agent reads; the record keeps it whole.',
      ),
    maxToolCallsPerTurn: z
      .number()
      .int()
      .positive()
      .default(16)
      .describe('More calls in one message are refused as a whole and fed back as a tool error.'),
  })
  .strict();
export type EpisodeLimits = z.infer<typeof EpisodeLimits>;

/** The payload of one `runEpisode` activity: ids and configs only; the task is read from its task set. */
export const EpisodeRequest = z
  .object({
    episodeId: z
      .string()
      .min(1)
      .describe('Deterministic, e.g. "<campaignId>/step-3/g2-t5": a retried attempt reattaches to the same backend.'),
    taskId: z.string().min(1),
    taskSet: z.string().min(1).describe('Task-set manifest path or URI.'),
    trial: z.number().int().nonnegative(),
    campaignId: z.string().min(1).optional(),
    step: z.number().int().nonnegative().optional(),
    group: z.number().int().nonnegative().optional(),
    policy: PolicyRef,
    user: UserSimulatorConfig.default({ kind: 'scripted' }),
    judge: JudgeConfig.optional(),
    limits: EpisodeLimits.prefault({}),
    seed: z.number().int().describe('Sampling seed of this episode.'),
  })
  .strict();
export type EpisodeRequest = z.infer<typeof EpisodeRequest>;
export type EpisodeRequestInput = z.input<typeof EpisodeRequest>;

export const FinishReason = z.enum([
  'agent_done',
  'user_done',
  'max_turns',
  'max_tokens',
  'context_overflow',
  'timeout',
]);
export type FinishReason = z.infer<typeof FinishReason>;

/** What `runEpisode` returns: the result row plus references to the big data (never the data itself). */
export const EpisodeOutcome = ResultRow.extend({
  episodeId: z.string().min(1),
  finishReason: FinishReason,
  trajectoryUri: z
    .string()
    .min(1)
    .optional()
    .describe('Token trajectory in the artifact store (served policies only).'),
  trainable: z
    .boolean()
    .describe('False when the trajectory drifted from the rendered conversation or has no sampled token.'),
  summary: z
    .string()
    .optional()
    .describe('One line for people: task and trial, reward, what the diff changed, tool calls, finish reason.'),
}).strict();
export type EpisodeOutcome = z.infer<typeof EpisodeOutcome>;

/** One completed agent turn: which model and policy version wrote it, and how many parse failures it had. */
export const AgentTurnRecord = z
  .object({ model: z.string(), policyVersion: z.string(), parseFailures: z.number().int().nonnegative() })
  .strict();

export const ToolCallRecord = z
  .object({
    index: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .describe('The call index it consumed; null when it was refused before running (no effect, no index).'),
    tool: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    isError: z.boolean(),
    result: z.string().describe('What the tool answered, whole (the agent sees it cut at limits.maxToolResultChars).'),
    ms: z.number().nonnegative(),
  })
  .strict();

/** Everything kept about one episode, for audit (control database, table `episodes`). */
export const EpisodeRecord = z
  .object({
    outcome: EpisodeOutcome,
    group: z.number().int().nonnegative().optional(),
    interpretedBy: InterpretedBy,
    turns: z.array(AgentTurnRecord),
    transcript: Conversation,
    trajectoryDrift: TrajectoryDrift.nullable(),
    toolCalls: z.array(ToolCallRecord),
    resumedAt: z
      .array(z.number().int().nonnegative())
      .default([])
      .describe('Agent turns already done each time a retried attempt resumed from the turn checkpoint.'),
    servers: z
      .array(z.string())
      .default([])
      .describe(
        'The rollout servers that served the policy, in order: more than one when an attempt resumed on another server after its server was taken out.',
      ),
    grade: GradeReport,
    rubricVerdicts: z.array(RubricVerdict),
    unjudgedRubrics: z
      .number()
      .int()
      .nonnegative()
      .describe('Judge rubrics not evaluated because no judge was configured.'),
    unpricedModels: z.array(z.string()),
    timings: z
      .object({
        agentMs: z.number().describe('Waiting for the policy: model time.'),
        toolsMs: z.number(),
        userMs: z.number(),
        gradingMs: z.number(),
        provisionMs: z
          .number()
          .optional()
          .describe('Opening the episode database (provisioned, or reattached on a retry).'),
        mcpSessionMs: z.number().optional().describe('Connecting the MCP tool session.'),
        trajectoryMs: z.number().optional().describe('Writing the token trajectory to the artifact store.'),
        totalMs: z
          .number()
          .describe('From the start of the attempt until the record was complete (before it is stored).'),
      })
      .strict(),
  })
  .strict();
export type EpisodeRecord = z.infer<typeof EpisodeRecord>;

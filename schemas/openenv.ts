import { z } from 'zod';
import { FinishReason } from './episode.js';
import { StateDiffEntry } from './grading.js';
import { Profile, Split } from './task.js';

/**
 * The wire contract of `finalstate env serve --openenv`: a finalstate task set served as an OpenEnv environment
 * (openenv-core 0.3.0, its own server and client; python/finalstate_openenv). Field names are OpenEnv's (snake_case).
 * On OpenEnv's WebSocket (`/ws`) a reset is `{"type":"reset","data":OpenEnvResetParams}` and a step
 * `{"type":"step","data":OpenEnvAction}`; each is answered `{"type":"observation","data":OpenEnvStepResult}`, a
 * malformed one with OpenEnv's error response `{"type":"error","data":{"message","code"}}` (the session survives).
 * The same shapes travel between the Python server and the TypeScript episode host (OpenEnvHost* below).
 */

/**
 * Reset kwargs: `task_id` picks a task of the served set; `seed` draws one (the same seed, the same task); neither
 * draws one at random. A reset while an episode is open tears that one down first.
 */
export const OpenEnvResetParams = z
  .object({
    task_id: z.string().min(1).optional().describe('A task id of the served set (GET /tasks lists them).'),
    seed: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Draws a task of the set, deterministically: the same seed and set give the same task.'),
    episode_id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'an episode id is letters, digits and . _ : - (at most 128)')
      .optional()
      .describe('The episode id (default: a fresh one); an id already open on this server is refused.'),
  })
  .strict()
  .refine((p) => p.task_id === undefined || p.seed === undefined, {
    message: 'pass task_id or seed, not both',
    path: ['seed'],
  });
export type OpenEnvResetParams = z.infer<typeof OpenEnvResetParams>;

/** OpenEnv's Action base carries `metadata`; the actions accept it and ignore it. */
const actionMetadata = z.record(z.string(), z.unknown()).optional().describe("OpenEnv's Action.metadata (ignored).");

/**
 * A step action. `list_tools` and `call_tool` are OpenEnv's MCP actions (ListToolsAction, CallToolAction: what its
 * MCPToolClient sends); `message` is a message to the simulated user, whose reply comes back in `user_message` (a
 * user who ends the conversation ends the episode: graded, done); `finish` says the agent is done (graded, done).
 */
export const OpenEnvAction = z.discriminatedUnion('type', [
  z.object({ type: z.literal('list_tools'), metadata: actionMetadata }).strict(),
  z
    .object({
      type: z.literal('call_tool'),
      tool_name: z.string().min(1).describe('A tool the reset or list_tools listed.'),
      arguments: z.record(z.string(), z.unknown()).default({}).describe("The tool's arguments (its input_schema)."),
      metadata: actionMetadata,
    })
    .strict(),
  z
    .object({
      type: z.literal('message'),
      content: z.string().min(1, 'a message to the user needs some text').describe('What the agent says to the user.'),
      metadata: actionMetadata,
    })
    .strict(),
  z.object({ type: z.literal('finish'), metadata: actionMetadata }).strict(),
]);
export type OpenEnvAction = z.infer<typeof OpenEnvAction>;

/** A tool as OpenEnv's MCP types list it (mcp_types.Tool). */
export const OpenEnvTool = z
  .object({
    name: z.string(),
    description: z.string(),
    input_schema: z.record(z.string(), z.unknown()).describe("The tool's JSON Schema for its arguments."),
  })
  .strict();
export type OpenEnvTool = z.infer<typeof OpenEnvTool>;

/** OpenEnv's ToolError (mcp_types.ToolError): a tool call that failed; the episode goes on. */
export const OpenEnvToolError = z
  .object({
    error_type: z.enum(['execution_error', 'invalid_args', 'transport_error', 'tool_not_found', 'timeout']),
    message: z.string(),
  })
  .strict();
export type OpenEnvToolError = z.infer<typeof OpenEnvToolError>;

/**
 * An observation (OpenEnvStepResult.observation). A field that does not apply is absent, never null: OpenEnv's
 * MCPToolClient reads an observation with `tools` as a ListToolsObservation and one with `tool_name` as a
 * CallToolObservation. When done: `finish_reason`, and either the grade (`reward` 0/1 in the step result, `diff`,
 * `summary`) or, when the episode failed for a reason that is not the agent's (database down, grader crashed),
 * `infrastructure_error` with `reward` null: never 0.
 */
export const OpenEnvObservation = z
  .object({
    task_id: z.string(),
    episode_id: z.string(),
    system_prompt: z
      .string()
      .optional()
      .describe(
        "At reset: the agent's system prompt, the one finalstate's own episodes of the task get (the domain's policy).",
      ),
    user_message: z
      .string()
      .optional()
      .describe("The user's first message (at reset) or their reply (after a message action)."),
    tools: z.array(OpenEnvTool).optional().describe("The episode's tools (at reset and after list_tools)."),
    tool_name: z.string().optional().describe('After a call_tool: the tool called.'),
    result: z.string().optional().describe('After a call_tool that answered: its result text (often JSON).'),
    error: OpenEnvToolError.optional().describe('After a call_tool that failed: why (the episode goes on).'),
    finish_reason: FinishReason.optional().describe(
      'When done: agent_done (finish, or an empty message), user_done, max_turns, max_tokens, timeout, ….',
    ),
    diff: z
      .array(StateDiffEntry)
      .optional()
      .describe('When graded: the final state against the expected one (empty when it matches).'),
    diff_truncated: z.number().int().positive().optional().describe('Diff entries left out beyond the first 50.'),
    summary: z
      .string()
      .optional()
      .describe(
        'When graded: one line, e.g. "retail-042 t0 · reward 0 · changed orders.status · 3 calls · agent_done".',
      ),
    infrastructure_error: z
      .string()
      .optional()
      .describe("When the episode ended for a reason that is not the agent's: the cause; the reward is null."),
  })
  .strict();
export type OpenEnvObservation = z.infer<typeof OpenEnvObservation>;

/** What a reset or a step answers (OpenEnv's serialize_observation: observation, reward, done). */
export const OpenEnvStepResult = z
  .object({
    observation: OpenEnvObservation,
    reward: z
      .union([z.literal(0), z.literal(1), z.null()])
      .describe('The final-state grade when done; null before, and after an infrastructure failure.'),
    done: z.boolean(),
  })
  .strict();
export type OpenEnvStepResult = z.infer<typeof OpenEnvStepResult>;

/** One task as the task API shows it: where it belongs, never its solution (golden calls, assertions, init). */
export const OpenEnvTaskSummary = z
  .object({
    id: z.string(),
    set: z.string().describe('The task set (its manifest name).'),
    domain: z.string(),
    split: Split,
    profile: Profile,
    tags: z.array(z.string()),
    kind: z.enum(['native', 'thinkingbox']).describe('native: a finalstate domain pack; thinkingbox: ThinkingBox.'),
  })
  .strict();
export type OpenEnvTaskSummary = z.infer<typeof OpenEnvTaskSummary>;

/** `GET /tasks`: the served sets, each with its task ids. */
export const OpenEnvTaskSets = z
  .object({
    sets: z.array(
      z
        .object({
          name: z.string(),
          version: z.string(),
          domains: z.array(z.string()),
          splits: z.array(Split),
          kind: z.enum(['native', 'thinkingbox']),
          task_ids: z.array(z.string()),
        })
        .strict(),
    ),
  })
  .strict();
export type OpenEnvTaskSets = z.infer<typeof OpenEnvTaskSets>;

/** The step request the Python server sends the episode host (`POST /episodes/{episode_id}/step`). */
export const OpenEnvHostStep = z.object({ action: OpenEnvAction }).strict();
export type OpenEnvHostStep = z.infer<typeof OpenEnvHostStep>;

/** How the episode host answers a request it refuses (HTTP 4xx/5xx): the Python side raises it as the error. */
export const OpenEnvHostError = z
  .object({
    error: z.string().describe('What is wrong, and where.'),
    kind: z.enum(['bad_request', 'not_found', 'conflict', 'infrastructure']),
  })
  .strict();
export type OpenEnvHostError = z.infer<typeof OpenEnvHostError>;

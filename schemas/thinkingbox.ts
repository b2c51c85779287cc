import { z } from 'zod';

/**
 * ThinkingBox environments: tasks in ThinkingBox's test-case format, played on ThinkingBox's own session proxy and
 * MCP servers and graded by ThinkingBox's own test runner (the Python sidecar `finalstate_thinkingbox`, run in its own
 * venv). These schemas are the one definition of what crosses between finalstate and ThinkingBox.
 */

/** A tool as ThinkingBox's agent session knows it (thinkingbox.common.chat_types.ToolDef). */
export const ThinkingBoxToolDef = z
  .object({
    name: z.string().min(1),
    description: z.string(),
    input_schema: z.record(z.string(), z.unknown()),
    direct_response: z.string().nullable().optional(),
    is_end_turn: z.boolean().default(false),
  })
  .strict();
export type ThinkingBoxToolDef = z.infer<typeof ThinkingBoxToolDef>;

/** A scenario's tool override (thinkingbox.common.config_types.ToolDefOverride). */
export const ThinkingBoxToolOverride = z
  .object({
    name: z.string().min(1),
    override_description: z.string().nullable().optional(),
    override_arg_description: z.record(z.string(), z.string()).nullable().optional(),
    direct_response: z.string().nullable().optional(),
    is_end_turn: z.boolean().default(false),
  })
  .strict();
export type ThinkingBoxToolOverride = z.infer<typeof ThinkingBoxToolOverride>;

/**
 * The ThinkingBox part of a task (Task.thinkingbox): what ThinkingBox's hydrator made of one test case, so an episode
 * needs neither the test file nor the scenario at run time. The rest of the task (query, userContext, golden calls as
 * the `golden_test_case` of the scenario's server, domain = scenario, split, tags) sits in the task's own fields.
 */
export const ThinkingBoxTaskPart = z
  .object({
    uid: z.string().min(1).describe('ThinkingBox\'s test id, "file.py:test_name".'),
    file: z.string().min(1).describe('The test-case file it was imported from (for error messages).'),
    testName: z.string().min(1),
    scenario: z.string().min(1),
    systemMessages: z
      .array(z.string())
      .min(1)
      .describe(
        "The system messages ThinkingBox's agent session starts with: the agent template, then the scenario's and test's bot instructions.",
      ),
    builtinTools: z.array(ThinkingBoxToolDef).describe("The agent template's own tools (handled by the runner)."),
    toolOverrides: z.array(ThinkingBoxToolOverride),
    availableTools: z.array(z.string().min(1)).describe('The tools the session exposes (session_create).'),
    serverConfig: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .describe("The scenario's world_state merged with the test's init, as ThinkingBox merges them."),
    droppedSources: z
      .array(z.string())
      .default([])
      .describe('Servers whose `sources` were left out (no Typesense here): their policy search is unavailable.'),
    maxUserSimTurns: z.number().int().min(0),
    maxAgentSimTurns: z.number().int().min(0).nullable().describe("null: unlimited (ThinkingBox's default)."),
    testCode: z.string().min(1).describe('The test body, as ThinkingBox hydrated it.'),
  })
  .strict();
export type ThinkingBoxTaskPart = z.infer<typeof ThinkingBoxTaskPart>;

/** The stack's ThinkingBox settings (StackConfig.thinkingbox). */
export const ThinkingBoxStackConfig = z
  .object({
    home: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A folder laid out like ../shared/thinkingbox (thinkingbox/ and thinkingbox-data/); env THINKINGBOX_HOME. Unset: ../shared/thinkingbox when it exists.',
      ),
    url: z
      .url()
      .optional()
      .describe('A running session proxy to use instead of starting one (its base URL, e.g. http://host:8000).'),
    apiKeyFile: z
      .string()
      .min(1)
      .optional()
      .describe("File holding that proxy's bearer key (never logged); env FINALSTATE_THINKINGBOX_API_KEY_FILE."),
    port: z.number().int().min(1).max(65535).default(18610).describe('Port of the proxy `dev up` starts.'),
    venv: z.string().min(1).default('.venv-thinkingbox').describe("ThinkingBox's own venv (python/thinkingbox.lock)."),
    spareSessions: z
      .number()
      .int()
      .min(0)
      .max(64)
      .default(2)
      .describe('Sessions kept created ahead per server configuration (session_create takes 1-3 s).'),
    restartAfterSessions: z
      .number()
      .int()
      .min(0)
      .default(1500)
      .describe(
        'Restart a managed proxy, between episodes, after this many sessions (its create latency degrades); 0: never.',
      ),
    toolTimeoutSeconds: z.number().positive().default(120).describe("A tool call's limit at the proxy (its 504)."),
  })
  .strict();
export type ThinkingBoxStackConfig = z.infer<typeof ThinkingBoxStackConfig>;

/** A ThinkingBox chat message (thinkingbox.common.chat_types, discriminated by `T`), as the sidecar reads them. */
export const ThinkingBoxMessage = z.looseObject({
  T: z.enum(['Text', 'ToolCall', 'ParallelToolCall', 'ToolResponse']),
});
export type ThinkingBoxMessage = z.infer<typeof ThinkingBoxMessage>;

/** An LLM endpoint the sidecar calls for ThinkingBox's Judge or user simulator (OpenAI-compatible chat API). */
export const ThinkingBoxLlmEndpoint = z
  .object({
    baseUrl: z.string().min(1),
    model: z.string().min(1),
    apiKey: z.string().optional(),
    seed: z.number().int().optional(),
    temperature: z.number().min(0).optional(),
    maxTokens: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Tokens per answer (the campaign endpoint's maxTokens): a model that never stops is cut there."),
    timeoutSeconds: z.number().positive().optional().describe('Per request (default 120).'),
  })
  .strict();
export type ThinkingBoxLlmEndpoint = z.infer<typeof ThinkingBoxLlmEndpoint>;

const UsageLike = z.record(z.string(), z.unknown());

/** The sidecar's requests, one JSON object a line. */
export const SidecarRequest = z.discriminatedUnion('op', [
  z.object({ op: z.literal('ping') }).strict(),
  z
    .object({
      op: z.literal('hydrate'),
      dataset: z.string().min(1).describe('A ThinkingBox dataset folder (scenario/, agent/).'),
      inputs: z.array(z.string().min(1)).optional(),
      testList: z.string().min(1).nullable().optional(),
      agent: z.string().min(1).default('think'),
      dropSources: z.boolean(),
    })
    .strict(),
  z
    .object({
      op: z.literal('grade'),
      uid: z.string().min(1),
      testCode: z.string().min(1),
      messages: z.array(ThinkingBoxMessage),
      toolCalls: z.array(z.record(z.string(), z.unknown())),
      effects: z.record(z.string(), z.unknown()),
      initResult: z.record(z.string(), z.unknown()),
      sessionId: z.string().min(1),
      judge: ThinkingBoxLlmEndpoint.nullable(),
    })
    .strict(),
  z
    .object({
      op: z.literal('simulate_user'),
      userContext: z.string().nullable(),
      messages: z.array(ThinkingBoxMessage),
      endpoint: ThinkingBoxLlmEndpoint,
      canEndConversation: z.boolean(),
    })
    .strict(),
  z
    .object({
      op: z.literal('agent_request'),
      systemMessages: z.array(z.string()),
      messages: z.array(ThinkingBoxMessage),
      tools: z.array(z.record(z.string(), z.unknown())),
    })
    .strict(),
  z
    .object({
      op: z.literal('run_oracle_thinkingbox'),
      proxyUrl: z.string().min(1),
      timeoutSeconds: z.number().positive().optional(),
      task: z
        .object({
          query: z.string(),
          userContext: z.string().optional(),
          golden: z.array(z.object({ tool: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }).strict()),
          thinkingbox: ThinkingBoxTaskPart,
        })
        .strict()
        .describe('The calls given as `golden` are the ones the oracle makes (a mutated oracle: other calls).'),
    })
    .strict()
    .describe("One oracle episode through ThinkingBox's own runner (run_agent_user_loop, TestScript), timed."),
  z
    .object({
      op: z.literal('direct_response'),
      tool: z.string().min(1),
      result: z.string().describe("The tool's text answer."),
      template: z.string().describe("The scenario's `direct_response` override."),
    })
    .strict()
    .describe("A tool's answer under a direct_response override, by ThinkingBox's try_pop_direct_response."),
  z
    .object({
      op: z.literal('apply_tool_overrides'),
      tools: z.array(z.record(z.string(), z.unknown())),
      overrides: z.array(ThinkingBoxToolOverride),
    })
    .strict(),
]);
export type SidecarRequest = z.input<typeof SidecarRequest>;

/** A sidecar answer that is not a result: `malformed` (a task's fault), the rest infrastructure. */
export const SidecarFailure = z
  .object({
    ok: z.literal(false),
    kind: z.string().min(1).describe('malformed | judge_unreachable | user_unreachable | internal | ...'),
    message: z.string(),
  })
  .loose();
export type SidecarFailure = z.infer<typeof SidecarFailure>;

/** One task as the sidecar's `hydrate` gives it. */
export const HydratedThinkingBoxTask = z
  .object({
    uid: z.string().min(1),
    file: z.string().min(1),
    testName: z.string().min(1),
    scenario: z.string().min(1),
    query: z.string(),
    userContext: z.string().nullable(),
    botInstructions: z.string().nullable().optional(),
    systemMessages: z.array(z.string()).min(1),
    builtinTools: z.array(ThinkingBoxToolDef),
    toolOverrides: z.array(ThinkingBoxToolOverride),
    availableTools: z.array(z.string()),
    serverConfig: z.record(z.string(), z.record(z.string(), z.unknown())),
    droppedSources: z.array(z.string()),
    maxUserSimTurns: z.number().int().min(0),
    maxAgentSimTurns: z.number().int().min(0).nullable(),
    formatQuery: z.boolean().default(false),
    testCode: z.string().min(1),
    golden: z.array(z.object({ tool: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }).strict()),
    tags: z.record(z.string(), z.unknown()).default({}),
    hasHistory: z.boolean().default(false),
  })
  .loose();
export type HydratedThinkingBoxTask = z.infer<typeof HydratedThinkingBoxTask>;

export const HydrateResponse = z.object({ ok: z.literal(true), tasks: z.array(HydratedThinkingBoxTask) }).loose();

/** ThinkingBox's verdict on one episode (its TestResult), plus what the judge was and was not asked. */
export const GradeResponse = z
  .object({
    ok: z.literal(true),
    result: z.boolean(),
    reward: z.number().min(0).max(1),
    isSystemError: z.boolean(),
    errorType: z.string().nullable().optional(),
    tb: z.string().default(''),
    lineno: z.number().int().default(-1),
    lineContent: z.string().default(''),
    prints: z.string().default(''),
    judged: z.array(z.object({ question: z.string(), answer: z.unknown() }).loose()).default([]),
    unjudged: z.array(z.string()).default([]),
    judgeUsage: UsageLike.nullable().optional(),
  })
  .loose();
export type GradeResponse = z.infer<typeof GradeResponse>;

export const SimulateUserResponse = z
  .object({
    ok: z.literal(true),
    message: ThinkingBoxMessage,
    isDone: z.boolean(),
    usage: UsageLike.nullable().optional(),
  })
  .loose();
export type SimulateUserResponse = z.infer<typeof SimulateUserResponse>;

/** ThinkingBox's own runner's verdict on one oracle episode (`run_oracle_thinkingbox`), with its phases' seconds. */
export const OracleRunResponse = z
  .object({
    ok: z.literal(true),
    result: z.boolean(),
    reward: z.number(),
    isSystemError: z.boolean().optional(),
    finishReason: z.string(),
    toolCalls: z.number(),
    seconds: z.number(),
    phases: z.record(z.string(), z.number()),
  })
  .loose();
export type OracleRunResponse = z.infer<typeof OracleRunResponse>;

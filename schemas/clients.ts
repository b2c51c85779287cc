import { z } from 'zod';

const Milliseconds = z.number().int().positive();

const endpointFields = {
  model: z.string().min(1).describe('Model name sent with every request.'),
  apiKeyEnv: z
    .string()
    .min(1)
    .optional()
    .describe('Environment variable holding the API key (keys are never stored in config).'),
  timeoutMs: Milliseconds.default(120_000).describe('Per-request timeout.'),
};

/**
 * What serves the policy: `vllm` (vLLM's OpenAI-compatible server, started with VLLM_SERVER_DEV_MODE=1 for its admin
 * routes) or `finalstate` (python/finalstate/policy_server, the same subset plus a reported policy version).
 */
export const PolicyServerKind = z.enum(['vllm', 'finalstate']);
export type PolicyServerKind = z.infer<typeof PolicyServerKind>;

/** A rollout server of the fleet: where episodes are routed, and what it is (the policy client checks its version). */
export const RolloutServer = z
  .object({
    url: z.url().describe('Server root, e.g. http://10.0.0.5:8000.'),
    kind: PolicyServerKind,
  })
  .strict();
export type RolloutServer = z.infer<typeof RolloutServer>;

/** A server URL as the fleet compares it: parsed (scheme and host in lower case), without trailing slashes. */
export function serverKey(url: string): string {
  let normal = url;
  try {
    normal = new URL(url).href;
  } catch {
    // not a URL: compared as written (the schema refuses it anyway)
  }
  return normal.replace(/\/+$/, '');
}

/** A zod check of a list of servers: no URL twice (trailing slashes and case of the host aside), naming both places. */
export function noDuplicateServers(servers: ReadonlyArray<{ url: string }>, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  servers.forEach((server, index) => {
    const key = serverKey(server.url);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else
      ctx.addIssue({
        code: 'custom',
        path: [index, 'url'],
        message: `duplicate server URL ${JSON.stringify(server.url)}: the same server as entry ${first} (${JSON.stringify(servers[first]!.url)}); list each rollout server once`,
      });
  });
}

/**
 * A server that loads each new checkpoint: /pause, /collective_rpc reload_weights, /reset_prefix_cache, /resume, sent
 * with `Authorization: Bearer <token>`. The token itself never travels in a workflow payload: the ref names where
 * the publishing worker reads it (a file, or an environment variable); with neither, the stack's own token file
 * (`<dataDir>/secrets/policy-server.token`) when it exists, else no token.
 */
export const PolicyServerRef = RolloutServer.extend({
  tokenFile: z
    .string()
    .min(1)
    .optional()
    .describe(
      "File holding the admin routes' bearer token, as the publishing (control) worker sees it: the policy server's --admin-token-file, or vLLM's --api-key.",
    ),
  tokenEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .optional()
    .describe('Environment variable of the publishing (control) worker holding the bearer token.'),
})
  .strict()
  .refine((ref) => !(ref.tokenFile && ref.tokenEnv), {
    message: 'give the token one way: tokenFile or tokenEnv, not both',
    path: ['tokenEnv'],
  });
export type PolicyServerRef = z.infer<typeof PolicyServerRef>;

/** The chat format of a policy whose config names none and whose model was not checked (the tiny base model's). */
export const DEFAULT_CHAT_FAMILY = 'qwen3';

/** The policy under training or evaluation, served by vLLM or the project's policy server (token in, token out). */
export const PolicyClientConfig = z
  .object({
    baseUrl: z
      .url()
      .describe('Server root, e.g. http://127.0.0.1:8000 (completions at /v1/completions, tokenizer at /tokenize).'),
    serverKind: PolicyServerKind.default('finalstate').describe('What answers at baseUrl (vllm or finalstate).'),
    ...endpointFields,
    family: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Chat format of the model (an interpreter renderer: qwen3, qwen3-coder). Absent: `campaign start` sets the one the model check finds matching the checkpoint's own template; elsewhere qwen3.",
      ),
    controlTokens: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Spellings of the tokenizer's added tokens (e.g. SmolLM2's <file_sep>): observation text holding one is tokenised in pieces so it stays text. The chat format's own are always covered; `campaign start` sets these from the model check.",
      ),
    sampling: z
      .object({
        maxTokens: z.number().int().positive().default(1024).describe('Tokens per agent turn.'),
        temperature: z.number().min(0).default(1),
        topP: z.number().gt(0).max(1).default(1),
        seed: z.number().int().optional().describe('Base seed; each request adds its turn index.'),
        stop: z
          .array(z.string().min(1))
          .default([])
          .describe('Extra stop strings (the end-of-turn token already stops).'),
      })
      .strict()
      .default({ maxTokens: 1024, temperature: 1, topP: 1, stop: [] }),
  })
  .strict();
export type PolicyClientConfig = z.infer<typeof PolicyClientConfig>;
export type PolicyClientConfigInput = z.input<typeof PolicyClientConfig>;

/** The chat format (renderer family) a policy client is rendered and parsed with: the one place that reads it. */
export const chatFamily = (client: Pick<PolicyClientConfig, 'family'>): string => client.family ?? DEFAULT_CHAT_FAMILY;

/** An OpenAI-compatible chat-completions endpoint (hosted models, the LLM user simulator, the judge). */
export const ChatEndpointConfig = z
  .object({
    baseUrl: z.url().describe('API root including the version, e.g. https://api.openai.com/v1.'),
    ...endpointFields,
    maxRetries: z.number().int().min(0).max(10).default(2).describe('SDK retries on connection errors, 429 and 5xx.'),
    temperature: z.number().min(0).optional(),
    seed: z.number().int().optional(),
    maxTokens: z.number().int().positive().optional(),
  })
  .strict();
export type ChatEndpointConfig = z.infer<typeof ChatEndpointConfig>;
export type ChatEndpointConfigInput = z.input<typeof ChatEndpointConfig>;

export const UserSimulatorConfig = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('scripted') }).strict(),
  z.object({ kind: z.literal('llm'), endpoint: ChatEndpointConfig }).strict(),
]);
export type UserSimulatorConfig = z.infer<typeof UserSimulatorConfig>;

/** The LLM judge of `judge` rubrics: always temperature 0, with a fixed seed. */
export const JudgeConfig = z
  .object({
    endpoint: ChatEndpointConfig,
    seed: z.number().int().default(0),
  })
  .strict();
export type JudgeConfig = z.infer<typeof JudgeConfig>;

import { z } from 'zod';

/*
 * The subset of vLLM's OpenAI-compatible API the policy client reads (responses only; unknown fields pass). The
 * project's policy server implements the same subset.
 */

const TokenId = z.number().int().min(0);

export const CompletionLogprobs = z
  .object({
    tokens: z.array(z.string()).optional().describe('With return_tokens_as_token_ids: "token_id:<id>" per token.'),
    token_logprobs: z.array(z.number().nullable()),
  })
  .loose();

export const CompletionChoice = z
  .object({
    text: z.string(),
    token_ids: z.array(TokenId).nullish().describe('vLLM >= 0.10.2 with return_token_ids.'),
    logprobs: CompletionLogprobs.nullish(),
    finish_reason: z.string().nullable(),
    stop_reason: z.union([z.string(), z.number(), z.null()]).optional(),
  })
  .loose();

export const CompletionResponse = z
  .object({
    model: z.string(),
    choices: z.array(CompletionChoice).min(1),
    usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }).loose().nullish(),
    policy_version: z
      .union([z.string(), z.number().int()])
      .transform(String)
      .optional()
      .describe('Reported by the project policy server (an integer); vLLM omits it.'),
  })
  .loose();
export type CompletionResponse = z.infer<typeof CompletionResponse>;

/** vLLM's GET /weight_info (dev mode): the version label its publisher set, "default" until one was. */
export const WeightInfoResponse = z.object({ weight_version: z.string() }).loose();
export type WeightInfoResponse = z.infer<typeof WeightInfoResponse>;

export const TokenizeResponse = z
  .object({ tokens: z.array(TokenId), count: z.number().int().optional(), max_model_len: z.number().int().optional() })
  .loose();
export type TokenizeResponse = z.infer<typeof TokenizeResponse>;

export const DetokenizeResponse = z.object({ prompt: z.string() }).loose();
export type DetokenizeResponse = z.infer<typeof DetokenizeResponse>;

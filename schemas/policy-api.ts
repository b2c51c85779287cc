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
    prompt_token_ids: z.array(TokenId).nullish().describe('vLLM with return_token_ids.'),
    prompt_logprobs: z
      .array(z.record(z.string(), z.object({ logprob: z.number() }).loose()).nullable())
      .nullish()
      .describe('vLLM with prompt_logprobs: per prompt token (null for the first), its log-prob by token id.'),
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

/** GET /v1/models: the base model's card and, with LoRA, one per adapter loaded (its name as `id`). */
export const ModelsResponse = z.object({ data: z.array(z.object({ id: z.string() }).loose()) }).loose();
export type WeightInfoResponse = z.infer<typeof WeightInfoResponse>;

/** The log-probs a server gives the tokens of a fixed prompt after the first (runtime/clients/fingerprint.ts). */
export const ServedFingerprint = z
  .object({ promptTokenIds: z.array(TokenId).min(2), logprobs: z.array(z.number()).min(1) })
  .strict();
export type ServedFingerprint = z.infer<typeof ServedFingerprint>;

/**
 * served-fingerprint.json, which the publisher writes into a checkpoint directory once vLLM servers serve it: each
 * server's fingerprint of that policy version, for clients that cannot read the servers' /weight_info.
 */
export const ServedFingerprints = z
  .object({
    policyVersion: z.string().min(1),
    servers: z.array(z.object({ url: z.string(), fingerprint: ServedFingerprint }).strict()).min(1),
  })
  .strict();
export type ServedFingerprints = z.infer<typeof ServedFingerprints>;

export const SERVED_FINGERPRINT_FILE = 'served-fingerprint.json';

/** Where the fingerprints of the version published from checkpoint `checkpointUri` (a directory) lie. */
export const servedFingerprintUri = (checkpointUri: string) =>
  `${checkpointUri.replace(/\/+$/, '')}/${SERVED_FINGERPRINT_FILE}`;

export const TokenizeResponse = z
  .object({ tokens: z.array(TokenId), count: z.number().int().optional(), max_model_len: z.number().int().optional() })
  .loose();
export type TokenizeResponse = z.infer<typeof TokenizeResponse>;

export const DetokenizeResponse = z.object({ prompt: z.string() }).loose();
export type DetokenizeResponse = z.infer<typeof DetokenizeResponse>;

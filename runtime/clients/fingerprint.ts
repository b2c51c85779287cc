import { randomUUID } from 'node:crypto';
import { CompletionResponse, type ServedFingerprint } from '../../schemas/policy-api.js';
import { InfrastructureError } from '../../core/errors.js';
import { EndpointRequestError } from './errors.js';

/**
 * Which weights a vLLM server serves, read from what it answers when it cannot be asked (its /weight_info is out of
 * reach, e.g. behind a gateway that forwards only /v1/*): the log-probs it gives the tokens of a fixed prompt
 * (`prompt_logprobs`, one completion token at temperature 0). The publisher measures them right after it loaded a
 * version (servedFingerprint); the policy client measures them again and compares (fingerprintDiff).
 */

export const FINGERPRINT_PROMPT = 'Paris is in France.';

/**
 * Largest |diff| per prompt token still taken for the same weights. vLLM 0.32.0 (CPU, fp32) gave the publisher and
 * the client the same fingerprint exactly, and the trainer's log-probs to within 4e-5; one GRPO step of the real-smoke
 * preset moved served log-probs by up to 5.6e-2 (docs/experiments.md), the test model of another seed by 0.43
 * (test/runtime/policy-client.test.ts). Reduced precision (bf16 on GPUs) and batch-dependent kernels may need more.
 */
export const FINGERPRINT_TOLERANCE = 1e-4;

/** The request body: `prompt` is the text (the publisher) or its token ids (the client, replaying them). */
export function fingerprintRequest(model: string, prompt: string | readonly number[]) {
  return {
    model,
    prompt,
    max_tokens: 1,
    temperature: 0,
    prompt_logprobs: 0,
    return_token_ids: true,
    // Computed afresh, never from prefix-cache entries that other weights may have left.
    cache_salt: `fingerprint-${randomUUID()}`,
  };
}

/** The prompt's token ids and each one's log-prob after the first (which has none), from a fingerprint answer. */
export function fingerprintOf(url: string, answer: unknown): ServedFingerprint {
  const choice = CompletionResponse.safeParse(answer).data?.choices[0];
  const ids = choice?.prompt_token_ids;
  const perToken = choice?.prompt_logprobs;
  if (choice?.finish_reason === 'abort')
    throw new InfrastructureError(
      `policy-server at ${url} aborted the fingerprint's request (paused for a reload or shutting down)`,
      'policy-server',
    );
  if (!ids || !perToken || perToken.length !== ids.length || ids.length < 2)
    throw new EndpointRequestError(
      `policy-server at ${url} answered no prompt_logprobs with the prompt's token ids (vLLM >= 0.10.2 returns them with prompt_logprobs and return_token_ids)`,
      url,
      200,
    );
  const logprobs = ids.slice(1).map((id, i) => {
    const logprob = perToken[i + 1]?.[String(id)]?.logprob;
    if (logprob === undefined)
      throw new EndpointRequestError(`policy-server at ${url}: no prompt log-prob for token ${id}`, url, 200);
    return logprob;
  });
  return { promptTokenIds: ids, logprobs };
}

/** The largest |diff| between two measurements of the same prompt (Infinity when their lengths differ). */
export function fingerprintDiff(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return Infinity;
  return a.reduce((max, x, i) => Math.max(max, Math.abs(x - b[i]!)), 0);
}

import type { PolicyClientConfig } from '../../schemas/clients.js';
import {
  CompletionResponse,
  DetokenizeResponse,
  TokenizeResponse,
  WeightInfoResponse,
} from '../../schemas/policy-api.js';
import type { TokenUsage } from '../../schemas/runtime.js';
import type { Tokenizer } from '../trajectory/tokenizer.js';
import { InfrastructureError } from '../../core/errors.js';
import { EndpointRequestError } from './errors.js';
import { requestJson } from './http.js';

export interface CompletionRequest {
  promptTokenIds: readonly number[];
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  seed?: number;
  stop?: readonly string[];
}

/** One sampled completion, token in / token out: ids and logprobs exactly as the server returned them. */
export interface SampledCompletion {
  tokenIds: number[];
  logprobs: number[];
  /** The server's text (vLLM leaves the end-of-turn token out of it; the trajectory detokenises the ids instead). */
  text: string;
  finishReason: 'stop' | 'length';
  stopReason: string | number | null;
  model: string;
  /** The version the workflow published, which the server confirmed; without one, the version the server reports. */
  policyVersion: string;
  usage: TokenUsage;
}

const TOKEN_ID_PREFIX = 'token_id:';

export interface PolicyClientOptions {
  /**
   * The policy version the workflow published to the server (absent for the base policy). Every request carries it
   * as `cache_salt`, so prefix-cache entries of two versions never mix, and every sample is stamped with it once the
   * server confirmed it: the project's server reports the version of each completion; vLLM reports its weight
   * version on /weight_info (set by the publisher), read before and after each completion. A server that reports
   * another version has restarted or missed a publish.
   */
  policyVersion?: string;
}

/**
 * Client of vLLM's OpenAI-compatible completions API (and of the project's policy server, which implements the same
 * subset): prompts go in as token ids, completions come back as token ids with their logprobs, stamped with the policy
 * version that served them.
 */
export class PolicyClient implements Tokenizer {
  private readonly root: string;
  private readonly headers: Record<string, string>;
  private maxModelLength: number | undefined;

  constructor(
    readonly config: PolicyClientConfig,
    private readonly options: PolicyClientOptions = {},
  ) {
    this.root = config.baseUrl.replace(/\/+$/, '');
    const key = config.apiKeyEnv ? process.env[config.apiKeyEnv] : undefined;
    this.headers = key ? { authorization: `Bearer ${key}` } : {};
  }

  /** POST `body` to `path` (a GET when `body` is undefined). */
  private post<T extends Parameters<typeof requestJson>[2]>(
    path: string,
    body: unknown,
    schema: T,
    signal?: AbortSignal,
  ) {
    return requestJson(`${this.root}${path}`, body, schema, {
      component: 'policy-server',
      timeoutMs: this.config.timeoutMs,
      headers: this.headers,
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * vLLM's weight version (GET /weight_info, dev mode): "default" until told one, then what the publisher set. The
   * project's server has no such route (it reports the version in every answer): a 404 means a server of the wrong kind.
   */
  private async weightVersion(signal?: AbortSignal): Promise<string> {
    try {
      return (await this.post('/weight_info', undefined, WeightInfoResponse, signal)).weight_version;
    } catch (err) {
      if (err instanceof EndpointRequestError && err.status === 404)
        throw new EndpointRequestError(
          `policy-server at ${this.root} has no /weight_info, so it cannot confirm which weights serve (serverKind "vllm"): start vLLM with VLLM_SERVER_DEV_MODE=1 (0.32.0 is tested), or, for the project's policy server, set serverKind "finalstate"`,
          err.url,
          404,
        );
      throw err;
    }
  }

  async complete(request: CompletionRequest, signal?: AbortSignal): Promise<SampledCompletion> {
    const sampling = this.config.sampling;
    const url = `${this.root}/v1/completions`;
    const vllm = this.config.serverKind === 'vllm';
    const before = vllm ? await this.weightVersion(signal) : undefined;
    const response = await this.post(
      '/v1/completions',
      {
        model: this.config.model,
        prompt: request.promptTokenIds,
        max_tokens: request.maxTokens ?? sampling.maxTokens,
        temperature: request.temperature ?? sampling.temperature,
        top_p: request.topP ?? sampling.topP,
        seed: request.seed ?? sampling.seed,
        stop: request.stop ?? sampling.stop,
        n: 1,
        stream: false,
        logprobs: 0,
        // vLLM extensions: token ids back, special tokens kept in text.
        return_token_ids: true,
        return_tokens_as_token_ids: true,
        skip_special_tokens: false,
        include_stop_str_in_output: true,
        ...(this.options.policyVersion === undefined ? {} : { cache_salt: `policy-${this.options.policyVersion}` }),
      },
      CompletionResponse,
      signal,
    );
    const choice = response.choices[0]!;
    const fail = (what: string) => new EndpointRequestError(`policy-server at ${url}: ${what}`, url, 200);
    if (choice.finish_reason === 'abort') {
      // vLLM aborts requests in flight when it is paused (weight reload) or shut down: retry, never score.
      throw new InfrastructureError(
        `policy-server at ${url} aborted the request (finish_reason "abort": paused for a reload or shutting down)`,
        'policy-server',
      );
    }
    const expected = this.options.policyVersion;
    let served = response.policy_version;
    if (vllm) {
      const after = await this.weightVersion(signal);
      if (after !== before)
        throw new InfrastructureError(
          `policy-server at ${this.root} changed weight version from ${before} to ${after} while it served the completion: which weights sampled it is unknown`,
          'policy-server',
        );
      served = after;
    } else if (expected !== undefined && served === undefined) {
      throw new EndpointRequestError(
        `policy-server at ${url} reports no policy_version, so it cannot confirm it serves version ${expected}: for vLLM, set serverKind "vllm"`,
        url,
        200,
      );
    }
    if (expected !== undefined && served !== expected) {
      throw new InfrastructureError(
        `policy-server at ${url} serves policy version ${served}, but the workflow published ${expected} (a server that restarted, or missed a publish)`,
        'policy-server',
      );
    }
    const tokenIds =
      choice.token_ids ??
      choice.logprobs?.tokens?.map((token) => {
        if (!token.startsWith(TOKEN_ID_PREFIX))
          throw fail(`token "${token}" is not "token_id:<id>" (is return_tokens_as_token_ids supported?)`);
        return Number(token.slice(TOKEN_ID_PREFIX.length));
      });
    if (!tokenIds)
      throw fail('the answer carries no completion token ids (vLLM >= 0.10.2 returns them with return_token_ids)');
    const logprobs = choice.logprobs?.token_logprobs;
    if (!logprobs || logprobs.length !== tokenIds.length || logprobs.some((lp) => lp === null)) {
      throw fail(
        `expected one logprob per completion token (${tokenIds.length} tokens, ${logprobs?.length ?? 0} logprobs)`,
      );
    }
    if (choice.finish_reason !== 'stop' && choice.finish_reason !== 'length')
      throw fail(`unexpected finish_reason ${JSON.stringify(choice.finish_reason)}`);
    const cached = (response.usage as { prompt_tokens_details?: { cached_tokens?: number } } | null | undefined)
      ?.prompt_tokens_details?.cached_tokens;
    return {
      tokenIds,
      logprobs: logprobs as number[],
      text: choice.text,
      finishReason: choice.finish_reason,
      stopReason: choice.stop_reason ?? null,
      model: response.model,
      policyVersion: expected ?? served ?? response.model,
      usage: {
        inputTokens: response.usage?.prompt_tokens ?? request.promptTokenIds.length,
        cachedInputTokens: cached ?? 0,
        outputTokens: response.usage?.completion_tokens ?? tokenIds.length,
      },
    };
  }

  async tokenize(text: string): Promise<number[]> {
    const response = await this.post(
      '/tokenize',
      { model: this.config.model, prompt: text, add_special_tokens: false },
      TokenizeResponse,
    );
    if (response.max_model_len !== undefined) this.maxModelLength = response.max_model_len;
    return response.tokens;
  }

  async detokenize(tokenIds: readonly number[]): Promise<string> {
    return (await this.post('/detokenize', { model: this.config.model, tokens: tokenIds }, DetokenizeResponse)).prompt;
  }

  /** The model's context length as the server last reported it (known after the first tokenize call). */
  contextLength(): number | undefined {
    return this.maxModelLength;
  }
}

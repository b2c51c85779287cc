import type { PolicyClientConfig } from '../../schemas/clients.js';
import { CompletionResponse, DetokenizeResponse, TokenizeResponse } from '../../schemas/policy-api.js';
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
  /** The version the workflow published (else the project's policy server's report, else the served model name). */
  policyVersion: string;
  usage: TokenUsage;
}

const TOKEN_ID_PREFIX = 'token_id:';

export interface PolicyClientOptions {
  /**
   * The policy version the workflow published to the server (absent for a base policy outside a campaign). Every
   * request carries it as `cache_salt`, so prefix-cache entries of two versions never mix, and every sample is
   * stamped with it. A server that reports another version (the project's policy server does) has missed a publish.
   */
  policyVersion?: string;
}

/**
 * Client of vLLM's OpenAI-compatible completions API (and of the project's policy server, which implements the same
 * subset): prompts go in as token ids, completions come back as token ids with their logprobs.
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

  async complete(request: CompletionRequest, signal?: AbortSignal): Promise<SampledCompletion> {
    const sampling = this.config.sampling;
    const url = `${this.root}/v1/completions`;
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
    if (expected !== undefined && response.policy_version !== undefined && response.policy_version !== expected) {
      throw new InfrastructureError(
        `policy-server at ${url} serves policy version ${response.policy_version}, but the workflow published ${expected} (a server that restarted on an older checkpoint, or missed a publish)`,
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
      policyVersion: expected ?? response.policy_version ?? response.model,
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

import type { z } from 'zod';
import type { PolicyClientConfig } from '../../schemas/clients.js';
import { CompletionResponse, DetokenizeResponse, TokenizeResponse } from '../../schemas/policy-api.js';
import type { TokenUsage } from '../../schemas/runtime.js';
import type { Tokenizer } from '../trajectory/tokenizer.js';
import { InfrastructureError } from '../../core/errors.js';
import { servedVersionNumber, versionNumber } from '../../core/policy-versions.js';
import { EndpointRequestError } from './errors.js';
import { requestJson } from './http.js';
import {
  ListedAdapter,
  ReportedPolicyVersion,
  WeightVersionCheck,
  type PendingConfirmation,
  type PolicyServerCalls,
  type VersionConfirmation,
  type VersionWindow,
} from './version-confirmation.js';

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
  /** The version that served it, as the server reported it (checked against the episode's window when it has one). */
  policyVersion: string;
  usage: TokenUsage;
}

const TOKEN_ID_PREFIX = 'token_id:';

/** What the client tells the rollout fleet about its server (runtime/fleet/router.ts: ServerLease). */
export interface ServerReports {
  /** The server served a completion at this version. */
  served(version: number): void;
  /** It stopped answering, or serves a version behind the episode's window (it must serve `floor` to come back). */
  failed(reason: string, floor?: number): void;
}

export interface PolicyClientOptions {
  /**
   * The newest policy version the episode accepts (absent for the base policy: any version). Every sample is
   * stamped with the version that served it once the server confirmed one inside the window [minVersion,
   * policyVersion]: the project's server reports the version of each completion; vLLM reports its weight version
   * on /weight_info (set by the publisher), read before and after each completion. A server behind the window has
   * restarted or missed a publish; one ahead of it serves a newer policy than the episode may train on.
   */
  policyVersion?: string;
  /** With policyVersion: the oldest version the episode accepts (a step number); absent: exactly policyVersion. */
  minVersion?: string;
  /**
   * With policyVersion: the version's served-fingerprint.json (the publisher's measurement). A vLLM whose
   * /weight_info is out of reach (a gateway that forwards only /v1/*) is checked by its fingerprint instead, against
   * policyVersion exactly (the window's older versions are not checked by fingerprint).
   */
  fingerprintUri?: string;
  /** The rollout fleet's hold on this server, told when the server fails or serves (runtime/fleet/router.ts). */
  reports?: ServerReports;
  /**
   * A LoRA campaign (PolicyRef.adapterPrefix): version n >= 1 is the adapter `<adapterPrefix><n>`, version 0 the
   * base model. Each completion names the newest adapter of the window the server lists on /v1/models, and is
   * stamped with that version: the name pins it, so no /weight_info or fingerprint is read.
   */
  adapterPrefix?: string;
}

/** What a policy client sends with every request: its API key (apiKeyEnv), when the variable is set. */
export function requestHeadersOf(config: Pick<PolicyClientConfig, 'apiKeyEnv'>): Record<string, string> {
  const key = config.apiKeyEnv ? process.env[config.apiKeyEnv] : undefined;
  return key ? { authorization: `Bearer ${key}` } : {};
}

/**
 * Client of vLLM's OpenAI-compatible completions API (and of the project's policy server, which implements the same
 * subset): prompts go in as token ids, completions come back as token ids with their logprobs, stamped with the policy
 * version that served them.
 */
export class PolicyClient implements Tokenizer {
  private readonly root: string;
  private readonly completionsUrl: string;
  private readonly headers: Record<string, string>;
  private maxModelLength: number | undefined;
  /** The versions the episode accepts, as numbers (absent: any). */
  private readonly window: VersionWindow | undefined;
  private readonly confirmation: VersionConfirmation;
  /** The version this server last served to this client. */
  private lastServed: string | undefined;

  constructor(
    readonly config: PolicyClientConfig,
    private readonly options: PolicyClientOptions = {},
  ) {
    this.root = config.baseUrl.replace(/\/+$/, '');
    this.completionsUrl = `${this.root}/v1/completions`;
    this.headers = requestHeadersOf(config);
    if (options.policyVersion !== undefined) {
      const max = versionNumber(options.policyVersion);
      this.window = { min: options.minVersion === undefined ? max : Number(options.minVersion), max };
    }
    const server: PolicyServerCalls = {
      root: this.root,
      model: config.model,
      timeoutMs: config.timeoutMs,
      request: (path, body, schema, signal) => this.post(path, body, schema, signal),
      takenOut: (message, floor) => this.takenOut(message, floor),
    };
    this.confirmation =
      options.adapterPrefix !== undefined
        ? new ListedAdapter(server, options.adapterPrefix, this.window)
        : config.serverKind === 'vllm'
          ? new WeightVersionCheck(server, options.policyVersion, options.fingerprintUri, this.window)
          : new ReportedPolicyVersion(server, options.policyVersion);
  }

  /** POST `body` to `path` (a GET when `body` is undefined); an outage of the server is reported to the fleet. */
  private async post<T extends z.ZodType>(
    path: string,
    body: unknown,
    schema: T,
    signal?: AbortSignal,
  ): Promise<z.infer<T>> {
    try {
      return await requestJson(`${this.root}${path}`, body, schema, {
        component: 'policy-server',
        timeoutMs: this.config.timeoutMs,
        headers: this.headers,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (err instanceof InfrastructureError && !signal?.aborted) this.options.reports?.failed(err.message);
      throw err;
    }
  }

  /** An InfrastructureError that takes the server out of the fleet until it serves at least `floor`. */
  private takenOut(message: string, floor?: number): InfrastructureError {
    this.options.reports?.failed(message, floor);
    return new InfrastructureError(message, 'policy-server');
  }

  async complete(request: CompletionRequest, signal?: AbortSignal): Promise<SampledCompletion> {
    const pending = await this.confirmation.beforeCompletion(signal);
    const response = await this.requestCompletion(request, pending, signal);
    const served = await pending.servedVersion(response);
    if (served !== undefined) this.checkWindow(served, this.completionsUrl);
    return sampledCompletion(this.completionsUrl, request, response, served);
  }

  /** The completion's request and answer; one that vLLM aborted takes the server out. */
  private async requestCompletion(
    request: CompletionRequest,
    pending: PendingConfirmation,
    signal?: AbortSignal,
  ): Promise<CompletionResponse> {
    const sampling = this.config.sampling;
    // Prefix-cache entries of two versions never mix: salted with the version that serves (vLLM: read just before).
    const cacheSalt =
      this.options.policyVersion === undefined
        ? undefined
        : `policy-${pending.versionBefore ?? this.lastServed ?? this.options.policyVersion}`;
    const response = await this.post(
      '/v1/completions',
      {
        model: pending.model,
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
        ...(cacheSalt === undefined ? {} : { cache_salt: cacheSalt }),
      },
      CompletionResponse,
      signal,
    ).catch((err: unknown) => {
      throw pending.requestFailed?.(err) ?? err;
    });
    if (response.choices[0]!.finish_reason === 'abort') {
      // vLLM aborts requests in flight when it is paused (weight reload) or shut down: retry, never score.
      throw this.takenOut(
        `policy-server at ${this.completionsUrl} aborted the request (finish_reason "abort": paused for a reload or shutting down)`,
      );
    }
    return response;
  }

  /**
   * `served` (what the server reports serving) inside the episode's window, or an InfrastructureError: behind it (a
   * server that restarted, or missed a publish) the server is taken out of the fleet until it serves the window's
   * oldest version; ahead of it the server is fine, and the episode may no longer train on what it serves.
   */
  private checkWindow(served: string, url: string): void {
    const number = servedVersionNumber(served);
    const window = this.window;
    if (window !== undefined && (number === undefined || number < window.min || number > window.max)) {
      const expected = this.options.policyVersion!;
      const what =
        window.min === window.max
          ? `but the workflow published ${expected}`
          : `outside the episode's window ${window.min}..${window.max}`;
      const message = `policy-server at ${url} serves policy version ${served}, ${what}`;
      if (number !== undefined && number > window.max)
        throw new InfrastructureError(`${message} (a newer policy than the episode may train on)`, 'policy-server');
      throw this.takenOut(`${message} (a server that restarted, or missed a publish)`, window.min);
    }
    this.lastServed = served;
    if (number !== undefined) this.options.reports?.served(number);
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

/** The sample a completion's answer holds, stamped with the version that `served` it (else the answer's model). */
function sampledCompletion(
  url: string,
  request: CompletionRequest,
  response: CompletionResponse,
  served: string | undefined,
): SampledCompletion {
  const choice = response.choices[0]!;
  const fail = (what: string) => new EndpointRequestError(`policy-server at ${url}: ${what}`, url, 200);
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
    policyVersion: served ?? response.model,
    usage: {
      inputTokens: response.usage?.prompt_tokens ?? request.promptTokenIds.length,
      cachedInputTokens: cached ?? 0,
      outputTokens: response.usage?.completion_tokens ?? tokenIds.length,
    },
  };
}

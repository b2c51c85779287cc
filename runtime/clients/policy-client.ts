import fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PolicyClientConfig } from '../../schemas/clients.js';
import {
  CompletionResponse,
  DetokenizeResponse,
  ModelsResponse,
  ServedFingerprints,
  TokenizeResponse,
  WeightInfoResponse,
} from '../../schemas/policy-api.js';
import { localPathOf } from '../../storage/artifacts.js';
import type { TokenUsage } from '../../schemas/runtime.js';
import type { Tokenizer } from '../trajectory/tokenizer.js';
import { InfrastructureError } from '../../core/errors.js';
import { adapterName, adapterVersionOf, servedVersionNumber, versionNumber } from '../../core/policy-versions.js';
import { EndpointRequestError } from './errors.js';
import { FINGERPRINT_TOLERANCE, fingerprintDiff, fingerprintOf, fingerprintRequest } from './fingerprint.js';
import { jsonOrUndefined, requestJson } from './http.js';
import { isReloadingVersion } from './policy-admin.js';

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

/** How often a client whose vLLM reports a publish under way ("reloading-N") looks again before it sends. */
const PUBLISH_POLL_MS = 100;

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
  private readonly headers: Record<string, string>;
  private maxModelLength: number | undefined;
  /** vLLM answered /weight_info with 404: its weights are checked by fingerprint from then on. */
  private noWeightInfo = false;
  /** Whether this server's fingerprint matched the version's since the client's last completion. */
  private fingerprintChecked = false;
  private published: Promise<ServedFingerprints> | undefined;
  /** The versions the episode accepts, as numbers (absent: any). */
  private readonly window: { min: number; max: number } | undefined;
  /** The version this server last served to this client. */
  private lastServed: string | undefined;

  constructor(
    readonly config: PolicyClientConfig,
    private readonly options: PolicyClientOptions = {},
  ) {
    this.root = config.baseUrl.replace(/\/+$/, '');
    this.headers = requestHeadersOf(config);
    if (options.policyVersion !== undefined) {
      const max = versionNumber(options.policyVersion);
      this.window = { min: options.minVersion === undefined ? max : Number(options.minVersion), max };
    }
  }

  /** POST `body` to `path` (a GET when `body` is undefined); an outage of the server is reported to the fleet. */
  private async post<T extends Parameters<typeof requestJson>[2]>(
    path: string,
    body: unknown,
    schema: T,
    signal?: AbortSignal,
  ) {
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

  /**
   * vLLM's weight version once no publish is under way: a publish pauses the server (new requests wait), reports
   * "reloading-N" until the new weights serve, then resumes, so a request sent meanwhile would wait anyway. One still
   * publishing after the client's timeout was left paused by a failed reload: taken out.
   */
  private async settledWeightVersion(signal?: AbortSignal): Promise<string | undefined> {
    const deadline = performance.now() + this.config.timeoutMs;
    for (;;) {
      const reported = await this.weightVersion(signal);
      if (reported === undefined || !isReloadingVersion(reported)) return reported;
      if (performance.now() > deadline)
        throw this.takenOut(
          `policy-server at ${this.root} has reported weight version ${reported} (a publish under way) for ${this.config.timeoutMs} ms: a publish that failed left it paused`,
        );
      try {
        await sleep(PUBLISH_POLL_MS, undefined, signal ? { signal } : {});
      } catch (err) {
        signal?.throwIfAborted();
        throw err;
      }
    }
  }

  /**
   * vLLM's weight version (GET /weight_info, dev mode): "default" until told one, then what the publisher set. The
   * project's server has no such route (it reports the version in every answer): a 404 means a server of the wrong
   * kind, unless the client has the version's fingerprint to check instead (servedVersion).
   */
  private async weightVersion(signal?: AbortSignal): Promise<string | undefined> {
    if (this.noWeightInfo) return undefined;
    try {
      return (await this.post('/weight_info', undefined, WeightInfoResponse, signal)).weight_version;
    } catch (err) {
      if (!(err instanceof EndpointRequestError && err.status === 404)) throw err;
      if (this.options.policyVersion === undefined || this.options.fingerprintUri === undefined)
        throw new EndpointRequestError(
          `policy-server at ${this.root} has no /weight_info, so it cannot confirm which weights serve (serverKind "vllm"): start vLLM with VLLM_SERVER_DEV_MODE=1 (0.32.0 is tested) and let the client reach /weight_info, or, for the project's policy server, set serverKind "finalstate"${this.options.policyVersion === undefined ? '' : `; with a publisher that reaches the server, version ${this.options.policyVersion} is checked by its served fingerprint instead (the episode's policy names none)`}`,
          err.url,
          404,
        );
      this.noWeightInfo = true;
      return undefined;
    }
  }

  /**
   * The version the server serves, read before (`when` "before") and after each completion: its /weight_info, else
   * the workflow's version once the server's fingerprint matches that version's within FINGERPRINT_TOLERANCE (an
   * InfrastructureError when it does not). Fingerprints are measured before the client's first completion and after
   * every completion; each after-measurement is the before-measurement of the next one. So every completion lies
   * between two matches on this server, and one served by other weights would need the server to change weights and
   * back to the version's within that completion: a restart comes back on its startup weights, and only a publish of
   * the same version loads them again.
   */
  private async servedVersion(when: 'before' | 'after', signal?: AbortSignal): Promise<string> {
    const reported = when === 'before' ? await this.settledWeightVersion(signal) : await this.weightVersion(signal);
    if (reported !== undefined) return reported;
    const expected = this.options.policyVersion!;
    if (when === 'before' && this.fingerprintChecked) return expected;
    this.fingerprintChecked = false;
    const published = await this.publishedFingerprints();
    const { promptTokenIds } = published.servers[0]!.fingerprint;
    const answer = await this.post(
      '/v1/completions',
      fingerprintRequest(this.config.model, promptTokenIds),
      CompletionResponse,
      signal,
    );
    const measured = fingerprintOf(`${this.root}/v1/completions`, answer).logprobs;
    const diff = Math.min(...published.servers.map((s) => fingerprintDiff(measured, s.fingerprint.logprobs)));
    if (!(diff <= FINGERPRINT_TOLERANCE)) {
      const exactly =
        this.window && this.window.min < this.window.max
          ? ` (checked by fingerprint, the episode accepts exactly version ${expected}, not its window ${this.window.min}..${this.window.max}: let the episode workers reach /weight_info for the window)`
          : '';
      throw this.takenOut(
        `policy-server at ${this.root} does not serve policy version ${expected}: its fingerprint (the log-probs of a fixed prompt) differs from the one measured when ${expected} was published by max |diff| ${diff.toExponential(2)} (tolerance ${FINGERPRINT_TOLERANCE.toExponential(0)}): a server that restarted, or serves other weights${exactly}`,
        this.window?.max,
      );
    }
    this.fingerprintChecked = true;
    return expected;
  }

  /** The publisher's fingerprints of the expected version; a missing or malformed file is a configuration error. */
  private publishedFingerprints(): Promise<ServedFingerprints> {
    const uri = this.options.fingerprintUri!;
    this.published ??= (async () => {
      let text: string;
      try {
        text = await fs.readFile(localPathOf(uri), 'utf8');
      } catch (err) {
        throw new EndpointRequestError(
          `policy-server at ${this.root} has no /weight_info, and the fingerprint of version ${this.options.policyVersion} cannot be read from ${uri} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): the publisher writes it when it publishes to a vLLM server; the episode workers must see the checkpoint directory`,
          uri,
          404,
        );
      }
      const json = jsonOrUndefined(text);
      const parsed = ServedFingerprints.safeParse(json);
      if (!parsed.success || parsed.data.policyVersion !== this.options.policyVersion)
        throw new EndpointRequestError(
          `${uri} is not the served fingerprint of policy version ${this.options.policyVersion}: ${parsed.success ? `it is version ${parsed.data.policyVersion}'s` : json === undefined ? 'not JSON' : parsed.error.message}`,
          uri,
          400,
        );
      return parsed.data;
    })();
    return this.published;
  }

  /**
   * A LoRA campaign's completion: the newest version of the window whose adapter the server lists (version 0: the
   * base model, listed always). None listed: the server restarted or missed a publish, so it is taken out until it
   * serves the window's oldest version (reconcileFleet loads the current adapter on it again).
   */
  private async adapterVersion(prefix: string, signal?: AbortSignal): Promise<number> {
    const { min, max } = this.window ?? { min: 0, max: Number.MAX_SAFE_INTEGER };
    const listed = await this.post('/v1/models', undefined, ModelsResponse, signal);
    const versions = listed.data.flatMap((card) => {
      const v = card.id === this.config.model ? 0 : adapterVersionOf(prefix, card.id);
      return v !== undefined && v >= min && v <= max ? [v] : [];
    });
    if (versions.length === 0)
      throw this.takenOut(
        `policy-server at ${this.root} has no adapter of versions ${min}..${max} loaded (it lists ${listed.data.map((c) => c.id).join(', ') || 'nothing'}): a server that restarted, or missed a publish`,
        min,
      );
    return Math.max(...versions);
  }

  async complete(request: CompletionRequest, signal?: AbortSignal): Promise<SampledCompletion> {
    const sampling = this.config.sampling;
    const url = `${this.root}/v1/completions`;
    const prefix = this.options.adapterPrefix;
    const adapter = prefix === undefined ? undefined : await this.adapterVersion(prefix, signal);
    const model = adapter === undefined || adapter === 0 ? this.config.model : adapterName(prefix!, adapter);
    const vllm = this.config.serverKind === 'vllm' && adapter === undefined;
    const before = vllm ? await this.servedVersion('before', signal) : undefined;
    const sent = this.post(
      '/v1/completions',
      {
        model,
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
        // Prefix-cache entries of two versions never mix: salted with the version that serves (vLLM: read just before).
        ...(this.options.policyVersion === undefined
          ? {}
          : { cache_salt: `policy-${adapter ?? before ?? this.lastServed ?? this.options.policyVersion}` }),
      },
      CompletionResponse,
      signal,
    );
    const response = await sent.catch((err: unknown) => {
      // The adapter was unloaded between the listing and the completion: the server moved on, retry elsewhere.
      if (adapter !== undefined && err instanceof EndpointRequestError && err.status === 404)
        throw this.takenOut(
          `policy-server at ${url} no longer serves adapter ${model}: ${err.message}`,
          this.window?.min,
        );
      throw err;
    });
    const choice = response.choices[0]!;
    const fail = (what: string) => new EndpointRequestError(`policy-server at ${url}: ${what}`, url, 200);
    if (choice.finish_reason === 'abort') {
      // vLLM aborts requests in flight when it is paused (weight reload) or shut down: retry, never score.
      throw this.takenOut(
        `policy-server at ${url} aborted the request (finish_reason "abort": paused for a reload or shutting down)`,
      );
    }
    const expected = this.options.policyVersion;
    let served = response.policy_version;
    if (adapter !== undefined) {
      if (response.model !== model)
        throw fail(`asked for ${model}, the answer names ${JSON.stringify(response.model)} as its model`);
      served = String(adapter);
    } else if (vllm) {
      const after = await this.servedVersion('after', signal);
      // A publish pauses with mode=wait: completions in flight finish on the weights they started with, and none
      // starts until the new version is set. So a completion back while the server still reports the publish under
      // way was served by the version read before it; any other change leaves unknown which weights sampled it.
      if (after !== before && !isReloadingVersion(after))
        throw new InfrastructureError(
          `policy-server at ${this.root} changed weight version from ${before} to ${after} while it served the completion: which weights sampled it is unknown`,
          'policy-server',
        );
      served = before;
    } else if (expected !== undefined && served === undefined) {
      throw new EndpointRequestError(
        `policy-server at ${url} reports no policy_version, so it cannot confirm it serves version ${expected}: for vLLM, set serverKind "vllm"`,
        url,
        200,
      );
    }
    if (served !== undefined) this.checkWindow(served, url);
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

import fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { InfrastructureError } from '../../core/errors.js';
import { adapterName, adapterVersionOf } from '../../core/policy-versions.js';
import {
  CompletionResponse,
  ModelsResponse,
  ServedFingerprints,
  WeightInfoResponse,
} from '../../schemas/policy-api.js';
import { localPathOf } from '../../storage/artifacts.js';
import { EndpointRequestError } from './errors.js';
import { FINGERPRINT_TOLERANCE, fingerprintDiff, fingerprintOf, fingerprintRequest } from './fingerprint.js';
import { jsonOrUndefined } from './http.js';
import { isReloadingVersion } from './policy-admin.js';

/**
 * How a policy client confirms which policy version served each completion, one way per kind of server, chosen once
 * per client (PolicyClient's constructor): the project's server reports it in every answer (ReportedPolicyVersion);
 * vLLM serving full weights reports its weight version before and after the completion (WeightVersionCheck); a LoRA
 * campaign's completion names the adapter of a version the server lists (ListedAdapter).
 */
export interface VersionConfirmation {
  /** Before a completion is sent: the model it names and what the server serves now. */
  beforeCompletion(signal?: AbortSignal): Promise<PendingConfirmation>;
}

/** One completion's confirmation, from before it is sent until its answer is back. */
export interface PendingConfirmation {
  /** The model the completion asks for. */
  readonly model: string;
  /** The version the server was confirmed to serve before the completion was sent (undefined: none asked). */
  readonly versionBefore: string | undefined;
  /** The error to throw when the completion's request failed with `err` (absent: `err` itself). */
  requestFailed?(err: unknown): unknown;
  /** The version that served `response` (undefined: the server reports none, and the episode requires none). */
  servedVersion(response: CompletionResponse): Promise<string | undefined>;
}

/** The versions an episode accepts, as step numbers. */
export interface VersionWindow {
  min: number;
  max: number;
}

/** What a confirmation asks of its client's server. */
export interface PolicyServerCalls {
  /** The server's base URL, without a trailing slash. */
  readonly root: string;
  /** The base model's name. */
  readonly model: string;
  /** The client's timeout per request. */
  readonly timeoutMs: number;
  /** POST `body` to `path` (a GET when `body` is undefined); an outage of the server is reported to the fleet. */
  request<T extends z.ZodType>(path: string, body: unknown, schema: T, signal?: AbortSignal): Promise<z.infer<T>>;
  /** An InfrastructureError that takes the server out of the fleet until it serves at least `floor`. */
  takenOut(message: string, floor?: number): InfrastructureError;
}

/** How often a client whose vLLM reports a publish under way ("reloading-N") looks again before it sends. */
const PUBLISH_POLL_MS = 100;

/** The project's policy server: every answer reports the version that served it (`policy_version`). */
export class ReportedPolicyVersion implements VersionConfirmation {
  constructor(
    private readonly server: PolicyServerCalls,
    private readonly expected: string | undefined,
  ) {}

  async beforeCompletion(): Promise<PendingConfirmation> {
    return {
      model: this.server.model,
      versionBefore: undefined,
      servedVersion: async (response) => {
        if (this.expected !== undefined && response.policy_version === undefined) {
          const url = `${this.server.root}/v1/completions`;
          throw new EndpointRequestError(
            `policy-server at ${url} reports no policy_version, so it cannot confirm it serves version ${this.expected}: for vLLM, set serverKind "vllm"`,
            url,
            200,
          );
        }
        return response.policy_version;
      },
    };
  }
}

/**
 * vLLM serving full weights: its weight version (/weight_info, set by the publisher) read before and after each
 * completion, or, where /weight_info is out of reach, the fingerprint the publisher measured for `expected`.
 */
export class WeightVersionCheck implements VersionConfirmation {
  /** vLLM answered /weight_info with 404: its weights are checked by fingerprint from then on. */
  private noWeightInfo = false;
  /** Whether this server's fingerprint matched the version's since the client's last completion. */
  private fingerprintChecked = false;
  private published: Promise<ServedFingerprints> | undefined;

  constructor(
    private readonly server: PolicyServerCalls,
    private readonly expected: string | undefined,
    private readonly fingerprintUri: string | undefined,
    private readonly window: VersionWindow | undefined,
  ) {}

  async beforeCompletion(signal?: AbortSignal): Promise<PendingConfirmation> {
    const before = await this.confirmedVersion('before', signal);
    return {
      model: this.server.model,
      versionBefore: before,
      servedVersion: async () => {
        const after = await this.confirmedVersion('after', signal);
        // A publish pauses with mode=wait: completions in flight finish on the weights they started with, and none
        // starts until the new version is set. So a completion back while the server still reports the publish under
        // way was served by the version read before it; any other change leaves unknown which weights sampled it.
        if (after !== before && !isReloadingVersion(after))
          throw new InfrastructureError(
            `policy-server at ${this.server.root} changed weight version from ${before} to ${after} while it served the completion: which weights sampled it is unknown`,
            'policy-server',
          );
        return before;
      },
    };
  }

  /**
   * vLLM's weight version once no publish is under way: a publish pauses the server (new requests wait), reports
   * "reloading-N" until the new weights serve, then resumes, so a request sent meanwhile would wait anyway. One still
   * publishing after the client's timeout was left paused by a failed reload: taken out.
   */
  private async settledWeightVersion(signal?: AbortSignal): Promise<string | undefined> {
    const deadline = performance.now() + this.server.timeoutMs;
    for (;;) {
      const reported = await this.weightVersion(signal);
      if (reported === undefined || !isReloadingVersion(reported)) return reported;
      if (performance.now() > deadline)
        throw this.server.takenOut(
          `policy-server at ${this.server.root} has reported weight version ${reported} (a publish under way) for ${this.server.timeoutMs} ms: a publish that failed left it paused`,
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
   * kind, unless the client has the version's fingerprint to check instead (confirmedVersion).
   */
  private async weightVersion(signal?: AbortSignal): Promise<string | undefined> {
    if (this.noWeightInfo) return undefined;
    try {
      return (await this.server.request('/weight_info', undefined, WeightInfoResponse, signal)).weight_version;
    } catch (err) {
      if (!(err instanceof EndpointRequestError && err.status === 404)) throw err;
      if (this.expected === undefined || this.fingerprintUri === undefined)
        throw new EndpointRequestError(
          `policy-server at ${this.server.root} has no /weight_info, so it cannot confirm which weights serve (serverKind "vllm"): start vLLM with VLLM_SERVER_DEV_MODE=1 (0.32.0 is tested) and let the client reach /weight_info, or, for the project's policy server, set serverKind "finalstate"${this.expected === undefined ? '' : `; with a publisher that reaches the server, version ${this.expected} is checked by its served fingerprint instead (the episode's policy names none)`}`,
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
  private async confirmedVersion(when: 'before' | 'after', signal?: AbortSignal): Promise<string> {
    const reported = when === 'before' ? await this.settledWeightVersion(signal) : await this.weightVersion(signal);
    if (reported !== undefined) return reported;
    const expected = this.expected!;
    if (when === 'before' && this.fingerprintChecked) return expected;
    this.fingerprintChecked = false;
    const published = await this.publishedFingerprints();
    const { promptTokenIds } = published.servers[0]!.fingerprint;
    const answer = await this.server.request(
      '/v1/completions',
      fingerprintRequest(this.server.model, promptTokenIds),
      CompletionResponse,
      signal,
    );
    const measured = fingerprintOf(`${this.server.root}/v1/completions`, answer).logprobs;
    const diff = Math.min(...published.servers.map((s) => fingerprintDiff(measured, s.fingerprint.logprobs)));
    if (!(diff <= FINGERPRINT_TOLERANCE)) {
      const exactly =
        this.window && this.window.min < this.window.max
          ? ` (checked by fingerprint, the episode accepts exactly version ${expected}, not its window ${this.window.min}..${this.window.max}: let the episode workers reach /weight_info for the window)`
          : '';
      throw this.server.takenOut(
        `policy-server at ${this.server.root} does not serve policy version ${expected}: its fingerprint (the log-probs of a fixed prompt) differs from the one measured when ${expected} was published by max |diff| ${diff.toExponential(2)} (tolerance ${FINGERPRINT_TOLERANCE.toExponential(0)}): a server that restarted, or serves other weights${exactly}`,
        this.window?.max,
      );
    }
    this.fingerprintChecked = true;
    return expected;
  }

  /** The publisher's fingerprints of the expected version; a missing or malformed file is a configuration error. */
  private publishedFingerprints(): Promise<ServedFingerprints> {
    const uri = this.fingerprintUri!;
    this.published ??= (async () => {
      let text: string;
      try {
        text = await fs.readFile(localPathOf(uri), 'utf8');
      } catch (err) {
        throw new EndpointRequestError(
          `policy-server at ${this.server.root} has no /weight_info, and the fingerprint of version ${this.expected} cannot be read from ${uri} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): the publisher writes it when it publishes to a vLLM server; the episode workers must see the checkpoint directory`,
          uri,
          404,
        );
      }
      const json = jsonOrUndefined(text);
      const parsed = ServedFingerprints.safeParse(json);
      if (!parsed.success || parsed.data.policyVersion !== this.expected)
        throw new EndpointRequestError(
          `${uri} is not the served fingerprint of policy version ${this.expected}: ${parsed.success ? `it is version ${parsed.data.policyVersion}'s` : json === undefined ? 'not JSON' : parsed.error.message}`,
          uri,
          400,
        );
      return parsed.data;
    })();
    return this.published;
  }
}

/**
 * A LoRA campaign: version n >= 1 is the adapter `<prefix><n>`, version 0 the base model. A completion names the
 * newest version of the window the server lists on /v1/models and was served by exactly that version.
 */
export class ListedAdapter implements VersionConfirmation {
  constructor(
    private readonly server: PolicyServerCalls,
    private readonly prefix: string,
    private readonly window: VersionWindow | undefined,
  ) {}

  async beforeCompletion(signal?: AbortSignal): Promise<PendingConfirmation> {
    const version = await this.newestListed(signal);
    const model = version === 0 ? this.server.model : adapterName(this.prefix, version);
    const url = `${this.server.root}/v1/completions`;
    return {
      model,
      versionBefore: String(version),
      requestFailed: (err) =>
        // The adapter was unloaded between the listing and the completion: the server moved on, retry elsewhere.
        err instanceof EndpointRequestError && err.status === 404
          ? this.server.takenOut(
              `policy-server at ${url} no longer serves adapter ${model}: ${err.message}`,
              this.window?.min,
            )
          : err,
      servedVersion: async (response) => {
        if (response.model !== model)
          throw new EndpointRequestError(
            `policy-server at ${url}: asked for ${model}, the answer names ${JSON.stringify(response.model)} as its model`,
            url,
            200,
          );
        return String(version);
      },
    };
  }

  /**
   * The newest version of the window whose adapter the server lists (version 0: the base model, listed always). None
   * listed: the server restarted or missed a publish, so it is taken out until it serves the window's oldest version
   * (reconcileFleet loads the current adapter on it again).
   */
  private async newestListed(signal?: AbortSignal): Promise<number> {
    const { min, max } = this.window ?? { min: 0, max: Number.MAX_SAFE_INTEGER };
    const listed = await this.server.request('/v1/models', undefined, ModelsResponse, signal);
    const versions = listed.data.flatMap((card) => {
      const v = card.id === this.server.model ? 0 : adapterVersionOf(this.prefix, card.id);
      return v !== undefined && v >= min && v <= max ? [v] : [];
    });
    if (versions.length === 0)
      throw this.server.takenOut(
        `policy-server at ${this.server.root} has no adapter of versions ${min}..${max} loaded (it lists ${listed.data.map((c) => c.id).join(', ') || 'nothing'}): a server that restarted, or missed a publish`,
        min,
      );
    return Math.max(...versions);
  }
}

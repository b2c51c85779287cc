import { setTimeout as sleep } from 'node:timers/promises';
import { InfrastructureError } from '../../core/errors.js';
import type { PolicyServerKind, PolicyServerRef } from '../../schemas/clients.js';
import type { ServedFingerprint } from '../../schemas/policy-api.js';
import type { ServerLeases } from '../../storage/server-leases.js';
import { EndpointRequestError } from './errors.js';
import { FINGERPRINT_PROMPT, fingerprintOf, fingerprintRequest } from './fingerprint.js';
import { jsonOrUndefined, requestText } from './http.js';

/**
 * Publishing a checkpoint to a rollout server through vLLM's admin routes (served with VLLM_SERVER_DEV_MODE=1; the
 * project's policy server implements the same subset), so that vLLM and our server share one publish path:
 *
 *   GET  /v1/models                                    the server is of the configured kind (`owned_by`)
 *   POST /pause?mode=wait                              in-flight requests finish on the weights they started with
 *   POST /update_weight_version "reloading-N"          (vLLM) until the end, no client takes it for any version
 *   POST /collective_rpc {"method": "reload_weights",  every worker loads the checkpoint directory from disk
 *                         "kwargs": {"weights_path": DIR}}
 *   POST /reset_prefix_cache                           no prompt reuses KV entries computed by the old weights
 *   POST /update_weight_version "N"                    (vLLM) what /weight_info reports, which the policy client checks
 *   POST /resume                                       see below
 *   POST /v1/completions (prompt_logprobs)             (vLLM) the version's fingerprint (fingerprint.ts), for clients
 *   GET  /weight_info                                  that cannot read /weight_info; measured on version N, checked
 *
 * Answers are empty or small JSON objects depending on the route and version; the status counts, and
 * /reset_prefix_cache's `{"success": false}` (vLLM's answer, with status 200, while blocks are still held) is a
 * failure. Every call has its own timeout and is retried on connection failures, timeouts, 429 and 5xx; a 4xx is a
 * configuration mistake (EndpointRequestError) and is not retried. A server of another kind than configured is one
 * too, found before anything is paused: vLLM answers the project's `policy_version` kwarg with a bare 500, which
 * would otherwise be retried as an outage.
 *
 * When the reload fails: the project's server loads a checkpoint beside the one it serves, so it is resumed on the
 * old weights. vLLM releases its weights before it reads the new files, and resumed after a failed reload it crashes
 * on the next completion (a segfault, 0.32.0). So a vLLM server is resumed only on weights it loaded: the `previous`
 * checkpoint (the last one published) is reloaded under its version; if that fails too, or there is none, the server
 * is left paused (completions wait instead of crashing it) until a later publish loads a checkpoint or it is
 * restarted. Either way the publish fails with an InfrastructureError, which the publishing activity retries.
 *
 * Versions only move forward. With `leases`, a publish holds the server's lease throughout, so it never overlaps
 * another publish or a reconcile of that server (storage/server-leases.ts). The project's server also refuses, with a
 * 409, a version older than the one it serves or is loading, unless the publish says `rollback`
 * (isNewerVersionServed); vLLM has no such check, and the lease is what keeps its versions in order.
 */

export interface PublishOptions {
  /** Timeout of each admin call except the reload. */
  requestTimeoutMs: number;
  /** Timeout of the reload call: loading a large checkpoint from disk takes minutes. */
  reloadTimeoutMs: number;
  /** Attempts per call (1 = no retry). */
  attempts: number;
  /** Wait before the second attempt, doubled for each later one. */
  backoffMs: number;
  /** How long a `finalstate` server may take to report the new version once resumed. */
  versionTimeoutMs: number;
  /** Called before each step (for heartbeats and logs; a test may act on the step). */
  onStep?: (step: PublishStep) => void;
  /** Bearer token of the admin routes, sent as `Authorization: Bearer <token>` (admin-token.ts says where it comes from). */
  token?: string;
  /** The per-server leases every publisher to the fleet holds (the control worker's: in the control database). */
  leases?: ServerLeases;
  /** Publish even over a newer version: the project's server refuses an older version without it. */
  rollback?: boolean;
}

export type PublishStep =
  | 'identify'
  | 'load_adapter'
  | 'probe_adapter'
  | 'unload_adapters'
  | 'pause'
  | 'mark_reloading'
  | 'reload_weights'
  | 'reset_prefix_cache'
  | 'set_weight_version'
  | 'restore_previous'
  | 'resume'
  | 'fingerprint'
  | 'await_version';

export const defaultPublishOptions: PublishOptions = {
  requestTimeoutMs: 30_000,
  reloadTimeoutMs: 300_000,
  attempts: 3,
  backoffMs: 1_000,
  versionTimeoutMs: 120_000,
};

/** A checkpoint directory and the policy version it holds. */
export interface PolicyCheckpoint {
  weightsPath: string;
  version: number;
}

export interface Published {
  url: string;
  kind: PolicyServerRef['kind'];
  version: number;
  /** Attempts each step took (1 when nothing had to be retried). */
  attempts: Partial<Record<PublishStep, number>>;
  /** vLLM: the fingerprint of the version it serves now. */
  fingerprint?: ServedFingerprint;
}

const COMPONENT = 'policy-server';

/** What `/v1/models` says each kind owns its models as. */
const OWNER: Record<PolicyServerKind, string> = { vllm: 'vllm', finalstate: 'finalstate' };

/** The weight version a vLLM server reports while a publish of `version` is under way. */
export const reloadingVersion = (version: number) => `reloading-${version}`;

/** Whether a reported weight version says a publish is under way (or one that failed left the server paused). */
export const isReloadingVersion = (reported: string) => reported.startsWith('reloading-');

export type Call = (
  step: PublishStep,
  path: string,
  body: unknown,
  options?: { timeoutMs?: number; accept?: (text: string) => void },
) => Promise<string>;

export function adminCaller(root: string, options: PublishOptions, attempts: Published['attempts']): Call {
  const headers = options.token ? { authorization: `Bearer ${options.token}` } : undefined;
  return async (step, path, body, { timeoutMs = options.requestTimeoutMs, accept } = {}) => {
    options.onStep?.(step);
    for (let attempt = 1; ; attempt++) {
      attempts[step] = attempt;
      try {
        const text = await requestText(`${root}${path}`, body, {
          component: COMPONENT,
          timeoutMs,
          ...(headers && { headers }),
        });
        accept?.(text);
        return text;
      } catch (err) {
        if (err instanceof EndpointRequestError && err.status === 404) {
          const hint = path.startsWith('/update_weight_version')
            ? 'this vLLM has no weight versions (/update_weight_version, /weight_info), which the policy client checks every completion against; use one that has (0.32.0 is tested)'
            : path.includes('lora_adapter')
              ? 'vLLM serves /v1/load_lora_adapter only when started with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True'
              : 'vLLM serves its admin routes only when started with VLLM_SERVER_DEV_MODE=1';
          throw new EndpointRequestError(`${err.message} (${hint})`, err.url, 404);
        }
        if (err instanceof EndpointRequestError && err.status === 401) {
          throw new EndpointRequestError(
            `${err.message} (the publisher ${options.token ? 'sent a token the server does not take' : 'sent no token'}: set tokenFile or tokenEnv on this server in the campaign's policyServers)`,
            err.url,
            401,
          );
        }
        if (!(err instanceof InfrastructureError) || attempt >= options.attempts) throw err;
        await sleep(options.backoffMs * 2 ** (attempt - 1));
      }
    }
  };
}

/** /reset_prefix_cache answers `{"success": false}` with status 200 when it did not reset (vLLM). */
function acceptReset(url: string) {
  return (text: string) => {
    // Empty or not JSON: the status alone counts.
    if ((jsonOrUndefined(text) as { success?: unknown } | undefined)?.success === false)
      throw new InfrastructureError(
        `${COMPONENT} at ${url}/reset_prefix_cache answered {"success": false}: the prefix cache was not reset (blocks still held by requests)`,
        COMPONENT,
      );
  };
}

/** POST /reset_prefix_cache alone: an InfrastructureError when vLLM answers that it did not reset. */
export async function resetPrefixCache(url: string, options: PublishOptions = defaultPublishOptions): Promise<void> {
  const root = url.replace(/\/+$/, '');
  await adminCaller(root, options, {})('reset_prefix_cache', '/reset_prefix_cache', {}, { accept: acceptReset(root) });
}

/**
 * The kind of server at `root`, from /v1/models' `owned_by`; an EndpointRequestError when it is not `expected`.
 * Returns the name it serves its model under.
 */
export async function checkKind(root: string, expected: PolicyServerKind, call: Call): Promise<string | undefined> {
  const text = await call('identify', '/v1/models', undefined);
  const model = (jsonOrUndefined(text) as { data?: Array<{ owned_by?: unknown; id?: unknown }> } | undefined)
    ?.data?.[0];
  const owner = model?.owned_by;
  if (owner === OWNER[expected]) return typeof model?.id === 'string' ? model.id : undefined;
  const actual = (Object.keys(OWNER) as PolicyServerKind[]).find((k) => OWNER[k] === owner);
  throw new EndpointRequestError(
    `policy server ${root} is configured as kind "${expected}", but its /v1/models says owned_by ${JSON.stringify(owner ?? null)}` +
      (actual ? `: it is a ${actual} server; set its kind to "${actual}"` : ': not a server this project publishes to'),
    `${root}/v1/models`,
    200,
  );
}

/**
 * The project's server refused a version older than the one it serves or is loading (HTTP 409: versions only move
 * forward, unless the publish says `rollback`).
 */
export const isNewerVersionServed = (err: unknown): err is EndpointRequestError =>
  err instanceof EndpointRequestError && err.status === 409;

/**
 * Load the checkpoint directory `weightsPath` as policy `version` on `server` (see the module comment), holding the
 * server's lease when `options.leases` has one. `previous`, the checkpoint the server serves now, is what a vLLM
 * server is pointed back to when the reload fails.
 */
export async function publishCheckpoint(
  server: PolicyServerRef,
  weightsPath: string,
  version: number,
  options: PublishOptions = defaultPublishOptions,
  previous?: PolicyCheckpoint,
): Promise<Published> {
  const { leases, ...unleased } = options;
  const publish = () => publishUnleased(server, weightsPath, version, unleased, previous);
  return leases ? leases.hold(server.url, publish) : publish();
}

async function publishUnleased(
  server: PolicyServerRef,
  weightsPath: string,
  version: number,
  options: PublishOptions,
  previous?: PolicyCheckpoint,
): Promise<Published> {
  const root = server.url.replace(/\/+$/, '');
  const attempts: Published['attempts'] = {};
  const call = adminCaller(root, options, attempts);
  const vllm = server.kind === 'vllm';
  const reload = (step: PublishStep, path: string, kwargs: Record<string, unknown> = {}) =>
    call(
      step,
      '/collective_rpc',
      {
        method: 'reload_weights',
        kwargs: { weights_path: path, ...kwargs },
        timeout: options.reloadTimeoutMs / 1000,
      },
      { timeoutMs: options.reloadTimeoutMs },
    );
  const setVersion = (step: PublishStep, value: string) => call(step, '/update_weight_version', { new_version: value });

  const model = await checkKind(root, server.kind, call);
  let failure: unknown;
  // A vLLM server whose reload failed holds no weights it loaded (it released them first): never resumed so.
  let weightsReleased = false;
  let restored = false;
  try {
    await call('pause', '/pause?mode=wait', {});
    if (vllm) await setVersion('mark_reloading', reloadingVersion(version));
    try {
      await reload(
        'reload_weights',
        weightsPath,
        vllm ? {} : { policy_version: version, ...(options.rollback ? { rollback: true } : {}) },
      );
    } catch (err) {
      weightsReleased = vllm;
      throw err;
    }
    await call('reset_prefix_cache', '/reset_prefix_cache', {}, { accept: acceptReset(root) });
    if (vllm) await setVersion('set_weight_version', String(version));
  } catch (err) {
    failure = err;
  }
  const message = (err: unknown) => (err as Error).message;
  if (weightsReleased && previous !== undefined) {
    try {
      await reload('restore_previous', previous.weightsPath);
      await call('restore_previous', '/reset_prefix_cache', {}, { accept: acceptReset(root) });
      await setVersion('restore_previous', String(previous.version));
      restored = true;
    } catch (err) {
      failure = new InfrastructureError(
        `${message(failure)}; pointing it back to version ${previous.version} (${previous.weightsPath}) failed too: ${message(err)}`,
        COMPONENT,
        { cause: failure },
      );
    }
  }
  if (weightsReleased && !restored) {
    const text =
      `policy server ${server.url} (vLLM) failed to load policy version ${version} from ${weightsPath} and holds no weights it loaded, ` +
      `so it is left paused (a completion would crash it) until a publish loads a checkpoint or it is restarted: ${message(failure)}`;
    // A refusal stays a configuration mistake (not retried); anything else is retried by the publishing activity.
    if (failure instanceof EndpointRequestError) throw new EndpointRequestError(text, failure.url, failure.status);
    throw new InfrastructureError(text, COMPONENT, { cause: failure });
  }
  try {
    await call('resume', '/resume', {});
  } catch (err) {
    // Both refused (no admin routes at all, e.g. vLLM without dev mode): the first refusal says it best.
    if (err instanceof EndpointRequestError && failure instanceof EndpointRequestError) throw failure;
    // A server left paused serves nothing: say so, and keep the first failure as the cause.
    const first = failure === undefined ? '' : ` after an earlier failure (${message(failure)})`;
    throw new InfrastructureError(
      `policy server ${server.url} could not be resumed${first}: ${message(err)}`,
      COMPONENT,
      {
        cause: failure ?? err,
      },
    );
  }
  if (restored) {
    const text = `${message(failure)} (policy server ${server.url} serves version ${previous!.version} again, from ${previous!.weightsPath})`;
    if (failure instanceof EndpointRequestError) throw new EndpointRequestError(text, failure.url, failure.status);
    throw new InfrastructureError(text, COMPONENT, { cause: failure });
  }
  if (failure !== undefined) throw failure;
  if (server.kind === 'finalstate') await awaitVersion(root, version, options, call);
  const fingerprint = vllm ? await measureFingerprint(root, model ?? '', version, call) : undefined;
  return { url: server.url, kind: server.kind, version, attempts, ...(fingerprint && { fingerprint }) };
}

/** The fingerprint of `version`, confirmed to be that version's by /weight_info read after it. */
async function measureFingerprint(root: string, model: string, version: number, call: Call) {
  const answer = await call('fingerprint', '/v1/completions', fingerprintRequest(model, FINGERPRINT_PROMPT));
  const fingerprint = fingerprintOf(`${root}/v1/completions`, jsonOrUndefined(answer));
  const info = jsonOrUndefined(await call('fingerprint', '/weight_info', undefined)) as
    { weight_version?: unknown } | undefined;
  const served = info?.weight_version;
  if (served !== String(version))
    throw new InfrastructureError(
      `policy server ${root} reports weight version ${JSON.stringify(served)}, not ${version}, right after it was published (restarted?): its fingerprint is not that of version ${version}`,
      COMPONENT,
    );
  return fingerprint;
}

async function awaitVersion(root: string, version: number, options: PublishOptions, call: Call): Promise<void> {
  const deadline = Date.now() + options.versionTimeoutMs;
  for (;;) {
    const text = await call('await_version', '/v1/models', undefined);
    const reported = (JSON.parse(text) as { data?: Array<{ policy_version?: number }> }).data?.[0]?.policy_version;
    if (reported === version) return;
    if (Date.now() > deadline)
      throw new InfrastructureError(
        `policy server ${root} still reports policy version ${reported}, not ${version}, ${options.versionTimeoutMs} ms after the reload`,
        COMPONENT,
      );
    await sleep(100);
  }
}

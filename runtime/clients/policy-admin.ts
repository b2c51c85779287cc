import { setTimeout as sleep } from 'node:timers/promises';
import { InfrastructureError } from '../../core/errors.js';
import type { PolicyServerRef } from '../../schemas/clients.js';
import { EndpointRequestError } from './errors.js';
import { requestText } from './http.js';

/**
 * Publishing a checkpoint to a rollout server through vLLM's admin routes (served with VLLM_SERVER_DEV_MODE=1; the
 * project's policy server implements the same subset), so that vLLM and our server share one publish path:
 *
 *   POST /pause?mode=wait                              in-flight requests finish on the weights they started with
 *   POST /collective_rpc {"method": "reload_weights",  every worker loads the checkpoint directory from disk
 *                         "kwargs": {"weights_path": DIR}}
 *   POST /reset_prefix_cache                           no prompt reuses KV entries computed by the old weights
 *   POST /resume                                       always, also when a step before it failed
 *
 * vLLM answers these with an empty body or a small JSON object depending on its version; only the status counts.
 * Every call has its own timeout and is retried on connection failures, timeouts, 429 and 5xx; a 4xx is a
 * configuration mistake (EndpointRequestError) and is not retried. A `finalstate` server is also told the policy
 * version (the `policy_version` kwarg, which vLLM's reload_weights would reject) and is then polled on /v1/models
 * until it reports it: it stamps every completion with the version it served.
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
  /** Called before each step (for heartbeats and logs). */
  onStep?: (step: PublishStep) => void;
  /** Bearer token of the admin routes, sent as `Authorization: Bearer <token>` (admin-token.ts says where it comes from). */
  token?: string;
}

export type PublishStep = 'pause' | 'reload_weights' | 'reset_prefix_cache' | 'resume' | 'await_version';

export const defaultPublishOptions: PublishOptions = {
  requestTimeoutMs: 30_000,
  reloadTimeoutMs: 300_000,
  attempts: 3,
  backoffMs: 1_000,
  versionTimeoutMs: 120_000,
};

export interface Published {
  url: string;
  kind: PolicyServerRef['kind'];
  version: number;
  /** Attempts each step took (1 when nothing had to be retried). */
  attempts: Partial<Record<PublishStep, number>>;
}

const COMPONENT = 'policy-server';

/** Load the checkpoint directory `weightsPath` as policy `version` on `server` (see the module comment). */
export async function publishCheckpoint(
  server: PolicyServerRef,
  weightsPath: string,
  version: number,
  options: PublishOptions = defaultPublishOptions,
): Promise<Published> {
  const root = server.url.replace(/\/+$/, '');
  const attempts: Published['attempts'] = {};
  const headers = options.token ? { authorization: `Bearer ${options.token}` } : undefined;
  const call = async (
    step: PublishStep,
    path: string,
    body: unknown,
    timeoutMs = options.requestTimeoutMs,
  ): Promise<string> => {
    options.onStep?.(step);
    for (let attempt = 1; ; attempt++) {
      attempts[step] = attempt;
      try {
        return await requestText(`${root}${path}`, body, {
          component: COMPONENT,
          timeoutMs,
          ...(headers && { headers }),
        });
      } catch (err) {
        if (err instanceof EndpointRequestError && err.status === 404) {
          throw new EndpointRequestError(
            `${err.message} (vLLM serves its admin routes only when started with VLLM_SERVER_DEV_MODE=1)`,
            err.url,
            404,
          );
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

  const kwargs: Record<string, unknown> = { weights_path: weightsPath };
  if (server.kind === 'finalstate') kwargs.policy_version = version;
  let failure: unknown;
  try {
    await call('pause', '/pause?mode=wait', {});
    await call(
      'reload_weights',
      '/collective_rpc',
      { method: 'reload_weights', kwargs, timeout: options.reloadTimeoutMs / 1000 },
      options.reloadTimeoutMs,
    );
    await call('reset_prefix_cache', '/reset_prefix_cache', {});
  } catch (err) {
    failure = err;
  } finally {
    try {
      await call('resume', '/resume', {});
    } catch (err) {
      // Both refused (no admin routes at all, e.g. vLLM without dev mode): the first refusal says it best.
      if (err instanceof EndpointRequestError && failure instanceof EndpointRequestError) throw failure;
      // A server left paused serves nothing: say so, and keep the first failure as the cause.
      const first = failure === undefined ? '' : ` after an earlier failure (${(failure as Error).message})`;
      throw new InfrastructureError(
        `policy server ${server.url} could not be resumed${first}: ${(err as Error).message}`,
        COMPONENT,
        { cause: failure ?? err },
      );
    }
  }
  if (failure !== undefined) throw failure;
  if (server.kind === 'finalstate') await awaitVersion(root, version, options, call);
  return { url: server.url, kind: server.kind, version, attempts };
}

async function awaitVersion(
  root: string,
  version: number,
  options: PublishOptions,
  call: (step: PublishStep, path: string, body: unknown) => Promise<string>,
): Promise<void> {
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

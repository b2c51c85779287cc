import { servedVersionNumber } from '../../core/policy-versions.js';
import type { RolloutServer } from '../../schemas/clients.js';
import { EndpointRequestError } from '../clients/errors.js';
import { jsonOrUndefined, requestText } from '../clients/http.js';

/**
 * The weight version a rollout server reports, as it reports it ("3", vLLM's "default", "reloading-4"): GET
 * /v1/models (it answers, and is of its kind), then vLLM's GET /weight_info; the project's server reports its
 * version in /v1/models. An InfrastructureError when it does not answer; an EndpointRequestError when it is of
 * another kind or refuses.
 */
export async function readServedVersion(
  server: RolloutServer,
  options: { headers?: Record<string, string>; timeoutMs: number },
): Promise<string> {
  const root = server.url.replace(/\/+$/, '');
  const get = async (path: string) =>
    jsonOrUndefined(
      await requestText(`${root}${path}`, undefined, {
        component: 'policy-server',
        timeoutMs: options.timeoutMs,
        ...(options.headers ? { headers: options.headers } : {}),
      }),
    );
  const models = (await get('/v1/models')) as
    { data?: Array<{ owned_by?: unknown; policy_version?: unknown }> } | undefined;
  const model = models?.data?.[0];
  if (model?.owned_by !== server.kind)
    throw new EndpointRequestError(
      `policy server ${root} is of kind "${server.kind}" in the fleet, but its /v1/models says owned_by ${JSON.stringify(model?.owned_by ?? null)}`,
      `${root}/v1/models`,
      200,
    );
  const reported =
    server.kind === 'vllm'
      ? ((await get('/weight_info')) as { weight_version?: unknown } | undefined)?.weight_version
      : model.policy_version;
  return String(reported);
}

/** What a server that was taken out answered when the fleet probed it. */
export type ProbeResult = { ok: true; version: number } | { ok: false; reason: string };

/**
 * One cheap look at a server taken out (readServedVersion): `ok` once it serves a version of at least `floor`. A
 * server that restarted on its startup weights ("default", the base policy) stays out until the fleet has published
 * the current version to it, and one still publishing ("reloading-N") until the publish ends.
 */
export async function probeServer(
  server: RolloutServer,
  floor: number,
  options: { headers?: Record<string, string>; timeoutMs: number },
): Promise<ProbeResult> {
  try {
    const reported = await readServedVersion(server, options);
    const version = servedVersionNumber(reported);
    if (version === undefined) return { ok: false, reason: `it reports weight version ${JSON.stringify(reported)}` };
    if (version < floor) return { ok: false, reason: `it serves version ${version}, behind ${floor}` };
    return { ok: true, version };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

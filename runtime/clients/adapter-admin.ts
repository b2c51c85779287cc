import path from 'node:path';
import { InfrastructureError } from '../../core/errors.js';
import { adapterName, adapterVersionOf } from '../../core/policy-versions.js';
import type { PolicyServerRef } from '../../schemas/clients.js';
import { tensorDifferences } from '../../storage/hf-checkpoint.js';
import { readAdapterConfig } from '../../storage/lora-adapter.js';
import { EndpointRequestError } from './errors.js';
import { jsonOrUndefined } from './http.js';
import { adminCaller, checkKind, type Call, type PublishOptions, type Published } from './policy-admin.js';

/**
 * Publishing a LoRA adapter (a LoRA campaign's checkpoint: PEFT's adapter_config.json and adapter_model.safetensors)
 * to a rollout server, beside the base model it serves, with the routes vLLM serves when started with `--enable-lora
 * --max-lora-rank R` and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True (the project's server serves the same):
 *
 *   GET  /v1/models                        the server is of the configured kind; the adapters it has loaded
 *   POST /v1/load_lora_adapter             {"lora_name": "<campaign>-v<N>", "lora_path": DIR}, unless already loaded
 *   POST /v1/completions                   a one-token probe that names the adapter: it serves
 *   POST /v1/unload_lora_adapter           each of the campaign's adapters older than `keepFrom` (no episode can use
 *                                          them any more: asynchronous steps keep the window's)
 *
 * No pause: requests in flight go on with the adapter they named, and a completion that names the new one is served
 * by exactly that version. Unlike a full reload, a failed load leaves the server serving what it had (vLLM 0.32.0 and
 * the project's server check the adapter before they use it), so the server is never left paused. A failure names
 * the server and the adapter, and is one of two kinds. An AdapterRefusedError when waiting cannot help: the server
 * refused the adapter itself (a 4xx; or a 500 whose message is a deserialisation, rank, module or shape error, as
 * vLLM answers a truncated file: "Error while deserializing header: incomplete metadata, file not fully covered";
 * ARTIFACT_ERRORS), or, before any load, the server reports a --max-lora-rank below the adapter's rank or serves
 * another base model than the adapter's (adapter_config.json). An InfrastructureError otherwise (connection refused,
 * a timeout, 503, any other 5xx): retried. Either way the publishing activity ejects the server (reconcileFleet tries
 * again later). The load itself is not retried within a publish: the reference trainer saw a rejected load leave
 * vLLM's registry refusing the next load of the same name, so a blind retry only hides the first error.
 */

const COMPONENT = 'policy-server';

/** A server refused the adapter itself (see the module comment): not fixed by waiting. */
export class AdapterRefusedError extends Error {
  override name = 'AdapterRefusedError';
  constructor(
    message: string,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * What a 500 from /v1/load_lora_adapter says when the adapter is at fault (vLLM 0.32.0 answers every exception of
 * the load with 500): its safetensors file (`Error while deserializing header: …`), its rank (`LoRA rank 16 is
 * greater than max_lora_rank 8.`), its modules (`While loading DIR, expected target modules in [...] but received
 * [...]`, `DIR doesn't contain tensors`), its config (`Missing required configuration fields`, `Adapter bias is not
 * supported.`), or tensor shapes unlike the model's.
 */
const ARTIFACT_ERRORS = [
  /error while deserializing header/i,
  /greater than max_lora_rank/i,
  /expected target modules/i,
  /doesn't contain tensors/i,
  /missing required configuration fields/i,
  /adapter bias is not supported/i,
  /must be a positive integer/i,
  /size mismatch|shape/i,
];

/** Whether a failed load call refused the adapter itself (not retryable) rather than failed to answer. */
export function refusesAdapter(err: unknown): boolean {
  if (err instanceof EndpointRequestError) return err.status !== 401;
  return err instanceof InfrastructureError && err.status === 500 && ARTIFACT_ERRORS.some((re) => re.test(err.message));
}

/** A campaign's adapters: their names are `<prefix><version>` (core/policy-versions.ts). */
export interface AdapterPublish {
  prefix: string;
  /** Unload the prefix's adapters of versions below this one; absent: unload none. */
  keepFrom?: number;
}

/** A model card of /v1/models: the base model, or an adapter (vLLM names its directory `root`). */
interface ModelCard {
  id?: unknown;
  root?: unknown;
}

async function loadedModels(call: Call, step: 'identify' | 'probe_adapter'): Promise<ModelCard[]> {
  const listed = jsonOrUndefined(await call(step, '/v1/models', undefined)) as { data?: ModelCard[] } | undefined;
  return listed?.data ?? [];
}

/** The versions of the prefix's adapters that `server` lists on /v1/models (newest first). */
export function adapterVersions(cards: ModelCard[], prefix: string): number[] {
  return cards
    .flatMap((c) => (typeof c.id === 'string' ? [adapterVersionOf(prefix, c.id)] : []))
    .filter((v): v is number => v !== undefined)
    .sort((a, b) => b - a);
}

/** Load the adapter directory `adapterPath` as policy `version` on `server` (see the module comment). */
export async function publishAdapter(
  server: PolicyServerRef,
  adapterPath: string,
  version: number,
  adapter: AdapterPublish,
  options: PublishOptions,
): Promise<Published & { unloaded: string[] }> {
  const root = server.url.replace(/\/+$/, '');
  const attempts: Published['attempts'] = {};
  const call = adminCaller(root, options, attempts);
  const once = adminCaller(root, { ...options, attempts: 1 }, attempts);
  const name = adapterName(adapter.prefix, version);
  await checkKind(root, server.kind, call);
  const cards = await loadedModels(call, 'identify');
  const loaded = cards.find((c) => c.id === name);
  if (loaded === undefined) {
    const what = `LoRA adapter ${name} (policy version ${version}) from ${adapterPath}`;
    const refusal = await refusalBeforeLoad(cards[0], adapterPath);
    if (refusal)
      throw new AdapterRefusedError(
        `policy server ${server.url} cannot serve ${what}: ${refusal}; it goes on serving the adapters it had`,
        server.url,
      );
    try {
      await once('load_adapter', '/v1/load_lora_adapter', { lora_name: name, lora_path: adapterPath });
    } catch (err) {
      if (err instanceof EndpointRequestError && err.status === 401) throw err;
      const text = `policy server ${server.url} ${refusesAdapter(err) ? 'refused' : 'could not load'} ${what}: ${(err as Error).message}; it goes on serving the adapters it had`;
      if (refusesAdapter(err)) throw new AdapterRefusedError(text, server.url, { cause: err });
      throw new InfrastructureError(text, COMPONENT, { cause: err });
    }
  } else if (typeof loaded.root === 'string' && loaded.root !== adapterPath) {
    throw new InfrastructureError(
      `policy server ${server.url} already serves an adapter named ${name} from ${loaded.root}, not ${adapterPath}: another campaign with this id?`,
      COMPONENT,
    );
  }
  await probe(root, name, call);
  const unloaded: string[] = [];
  if (adapter.keepFrom !== undefined) {
    const stale = adapterVersions(await loadedModels(call, 'probe_adapter'), adapter.prefix).filter(
      (v) => v < adapter.keepFrom!,
    );
    for (const old of stale) {
      const oldName = adapterName(adapter.prefix, old);
      // Best effort: an adapter left loaded costs memory, not correctness (the next publish tries again).
      await call('unload_adapters', '/v1/unload_lora_adapter', { lora_name: oldName })
        .then(() => unloaded.push(oldName))
        .catch(() => undefined);
    }
  }
  return { url: server.url, kind: server.kind, version, attempts, unloaded };
}

/**
 * Why a server cannot serve the adapter in `adapterPath`, from its /v1/models base card, before it is asked to: a
 * --max-lora-rank it reports below the adapter's rank (the project's server reports it; vLLM 0.32.0 does not and
 * refuses at the load), or a model it serves (its `root`, when readable here) other than the adapter's base model
 * (adapter_config.json's base_model_name_or_path): the same directory, or one with the same tensors. Undefined when
 * nothing says so, or the adapter's config cannot be read (the server then answers for it).
 */
async function refusalBeforeLoad(base: ModelCard | undefined, adapterPath: string): Promise<string | undefined> {
  const config = await readAdapterConfig(adapterPath).catch(() => undefined);
  if (!config || !base) return undefined;
  const max = (base as { max_lora_rank?: unknown }).max_lora_rank;
  if (typeof max === 'number' && config.rank > max)
    return `its rank ${config.rank} is above the server's --max-lora-rank ${max}`;
  const served = typeof base.root === 'string' ? base.root : undefined;
  if (!served || !config.baseModel || path.resolve(served) === path.resolve(config.baseModel)) return undefined;
  const differences = await tensorDifferences(served, config.baseModel);
  if (differences === undefined || differences.length === 0) return undefined;
  return `it was trained on ${config.baseModel}, but the server serves ${served}, another model (${differences.length} tensor differences: ${differences.slice(0, 3).join('; ')})`;
}

/**
 * The servers that say, on /v1/models, that they serve LoRA adapters of lower rank than `rank` (the project's server
 * reports `max_lora_rank`; vLLM 0.32.0 does not, and a rank above its --max-lora-rank is refused at the first publish).
 * A server that does not answer is left to the campaign's fleet.
 */
export async function serversBelowRank(
  servers: readonly PolicyServerRef[],
  rank: number,
  options: PublishOptions,
): Promise<string[]> {
  const problems: string[] = [];
  for (const server of servers) {
    const root = server.url.replace(/\/+$/, '');
    const cards = await loadedModels(adminCaller(root, { ...options, attempts: 1 }, {}), 'identify').catch(() => []);
    const max = (cards[0] as { max_lora_rank?: unknown } | undefined)?.max_lora_rank;
    if (typeof max === 'number' && max < rank)
      problems.push(
        `policy server ${server.url} serves LoRA adapters up to rank ${max} (--max-lora-rank), below update.lora.rank ${rank}`,
      );
  }
  return problems;
}

/** One token from the adapter: the server answers under its name (it is loaded and serves). */
async function probe(root: string, name: string, call: Call): Promise<void> {
  const answer = jsonOrUndefined(
    await call('probe_adapter', '/v1/completions', { model: name, prompt: 'Paris', max_tokens: 1, temperature: 0 }),
  ) as { model?: unknown; choices?: unknown[] } | undefined;
  if (answer?.model !== name || !answer.choices?.length)
    throw new InfrastructureError(
      `policy server ${root} did not serve the LoRA adapter ${name} it had loaded (a one-token probe answered ${JSON.stringify(answer?.model ?? null)})`,
      COMPONENT,
    );
}

/** The versions of the prefix's adapters a server lists (newest first); an error when it does not answer. */
export async function listedAdapterVersions(
  server: PolicyServerRef,
  prefix: string,
  options: PublishOptions,
): Promise<number[]> {
  const call = adminCaller(server.url.replace(/\/+$/, ''), options, {});
  return adapterVersions(await loadedModels(call, 'identify'), prefix);
}

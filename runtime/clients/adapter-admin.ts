import { InfrastructureError } from '../../core/errors.js';
import { adapterName, adapterVersionOf } from '../../core/policy-versions.js';
import type { PolicyServerRef } from '../../schemas/clients.js';
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
 * the project's server check the adapter before they use it), so the server is never left paused; the failure is an
 * InfrastructureError naming the server and the adapter (the publishing activity ejects the server; reconcileFleet
 * tries again later). The load itself is not retried within a publish: the reference trainer saw a rejected load
 * leave vLLM's registry refusing the next load of the same name, so a blind retry only hides the first error.
 */

const COMPONENT = 'policy-server';

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
    try {
      await once('load_adapter', '/v1/load_lora_adapter', { lora_name: name, lora_path: adapterPath });
    } catch (err) {
      throw new InfrastructureError(
        `policy server ${server.url} could not load LoRA adapter ${name} (policy version ${version}) from ${adapterPath}: ${(err as Error).message}; it goes on serving the adapters it had`,
        COMPONENT,
        { cause: err },
      );
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

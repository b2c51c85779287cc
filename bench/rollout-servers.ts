// Rollout tokens/s of vLLM (the CPU build, infra/vllm-server.ts) against the project's own policy server, on the same
// completions, in one run:
//   npm run build && node dist/bench/rollout-servers.js [--model DIR] [--tasks 8] [--concurrency 16]
//     [--max-tokens 64] [--own-port 18431] [--vllm-port 18432] [--json]
// The prompts are real episode prompts: the oracle plays --tasks training tasks of pools/rl-pool (never the eval split)
// through the episode runtime (the same loop, tools and interpreter as a campaign), and the prompt of every agent turn
// of each transcript, rendered in the qwen3 format, is tokenised once by the project's server. Both servers, serving the
// same model directory (default: the newest tiny base model in <dataPath>/models), then complete the same token ids
// (temperature 1, seed per prompt, up to --max-tokens) through the policy client a campaign uses, one at a time
// (batch 1) and --concurrency at once (default 16: two episode workers at workers.episodeConcurrency's default of 8).
// The samples differ between the servers (their samplers differ), so each prints its own token count. The project's
// server runs with the demo preset's settings (schemas/demo.ts: batch size, batch wait, torch threads), vLLM with
// infra/vllm-server.ts's. The order alternates (own, vLLM, vLLM, own) so that the machine's load falls on both. The
// baseline is the project's server; vLLM's figures are printed as ratios to it. The client's cost is in both figures
// (for vLLM it reads /weight_info before and after each completion, as in a campaign). Prints figures; asserts nothing.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fromRoot } from '../core/paths.js';
import { readTaskSet } from '../environment/task-set.js';
import { loadConfig } from '../workers/config.js';
import { startPolicyServer } from '../infra/policy-server.js';
import { startVllm, vllmPython } from '../infra/vllm-server.js';
import { PolicyClient } from '../runtime/clients/policy-client.js';
import { oracleDemonstrations } from '../runtime/demonstrations/demonstrations.js';
import { getRenderer } from '../runtime/interpreter/index.js';
import { DEFAULT_CHAT_FAMILY, PolicyClientConfig, type PolicyServerKind } from '../schemas/clients.js';
import type { LoadedConfig } from '../schemas/config.js';
import { DemoPreset } from '../schemas/demo.js';
import { createEpisodeRuntime } from '../workers/episode-runtime.js';

process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    tasks: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '16' },
    'max-tokens': { type: 'string', default: '64' },
    'own-port': { type: 'string', default: '18431' },
    'vllm-port': { type: 'string', default: '18432' },
    json: { type: 'boolean', default: false },
  },
});
const concurrency = Number(values.concurrency);
const maxTokens = Number(values['max-tokens']);
const SERVED_NAME = 'bench-policy';
const config = loadConfig();
const log = (line: string) => {
  if (!values.json) console.log(line);
};

/** The newest complete tiny base model that `finalstate model build-base` left in <dataPath>/models. */
function defaultModel(cfg: LoadedConfig): string {
  const dir = path.join(cfg.dataPath, 'models');
  const built = (fs.existsSync(dir) ? fs.readdirSync(dir) : [])
    .filter((name) => name.startsWith('base-') && fs.existsSync(path.join(dir, name, 'COMPLETE')))
    .map((name) => path.join(dir, name))
    .sort((a, b) => fs.statSync(path.join(b, 'COMPLETE')).mtimeMs - fs.statSync(path.join(a, 'COMPLETE')).mtimeMs);
  if (!built[0]) throw new Error(`no tiny base model in ${dir}: run \`finalstate model build-base\` or pass --model`);
  return built[0];
}

/** The prompt text of every agent turn of oracle episodes of `count` training tasks (retail and travel, mini). */
async function episodePrompts(count: number): Promise<string[]> {
  const sets = ['retail', 'travel'].map((domain) =>
    readTaskSet(fromRoot('pools', 'rl-pool', `${domain}-train-mini.manifest.json`)),
  );
  const runtime = await createEpisodeRuntime(config);
  try {
    const run = await oracleDemonstrations(runtime, getRenderer(DEFAULT_CHAT_FAMILY), sets, {
      maxTasks: count,
      concurrency: 4,
      episodePrefix: `bench-rollout-${Date.now().toString(36)}`,
    });
    return run.demonstrations.flatMap(({ demonstration }) =>
      demonstration.assistantSpans.map(([start]) => demonstration.text.slice(0, start)),
    );
  } finally {
    await runtime.close();
  }
}

interface Served {
  kind: PolicyServerKind;
  label: string;
  client: PolicyClient;
  stop(): Promise<void>;
}

/** The project's policy server with the demo preset's settings, started as the fleet starts it. */
async function startOwnServer(modelDir: string, port: number, logFile: string): Promise<Served> {
  const settings = DemoPreset.shape.policyServer.parse({ port });
  const children: ChildProcess[] = [];
  await startPolicyServer(
    config,
    { ...settings, port, servedModelName: SERVED_NAME },
    { checkpointDir: modelDir, version: 0 },
    logFile,
    children,
    () => {},
  );
  const child = children[0]!;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    kind: 'finalstate',
    label: "project's server",
    client: clientFor(`http://127.0.0.1:${port}`, 'finalstate'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function clientFor(baseUrl: string, serverKind: PolicyServerKind): PolicyClient {
  return new PolicyClient(
    PolicyClientConfig.parse({ baseUrl, serverKind, model: SERVED_NAME, sampling: { maxTokens, temperature: 1 } }),
  );
}

interface Pass {
  server: string;
  mode: string;
  completions: number;
  tokens: number;
  seconds: number;
  tokensPerSecond: number;
}

/** Completes every prompt (seed = its index), `parallel` at a time: output tokens per wall second. */
async function pass(served: Served, prompts: readonly number[][], parallel: number): Promise<Pass> {
  let next = 0;
  let tokens = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < prompts.length) {
      const index = next++;
      const completion = await served.client.complete({ promptTokenIds: prompts[index]!, seed: index });
      tokens += completion.tokenIds.length;
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  const seconds = (performance.now() - started) / 1000;
  return {
    server: served.label,
    mode: parallel === 1 ? 'batch 1' : `${parallel} concurrent`,
    completions: prompts.length,
    tokens,
    seconds: Number(seconds.toFixed(2)),
    tokensPerSecond: Number((tokens / seconds).toFixed(1)),
  };
}

const modelDir = values.model ?? defaultModel(config);
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-bench-rollout-'));
const servers: Served[] = [];
try {
  log(
    `model ${modelDir}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const texts = await episodePrompts(Number(values.tasks));
  const own = await startOwnServer(modelDir, Number(values['own-port']), path.join(workDir, 'own-server.log'));
  servers.push(own);
  const prompts = await Promise.all(texts.map((text) => own.client.tokenize(text)));
  const promptTokens = prompts.reduce((sum, p) => sum + p.length, 0);
  log(`${prompts.length} agent-turn prompts of ${values.tasks} oracle episodes, ${promptTokens} prompt tokens`);
  const vllmStarted = performance.now();
  const server = await startVllm(vllmPython(config), {
    modelDir,
    servedModelName: SERVED_NAME,
    port: Number(values['vllm-port']),
    logFile: path.join(workDir, 'vllm.log'),
    weightVersion: '0',
  });
  log(`vLLM ready in ${((performance.now() - vllmStarted) / 1000).toFixed(0)} s`);
  const onVllm: Served = {
    kind: 'vllm',
    label: 'vLLM',
    client: clientFor(server.url, 'vllm'),
    stop: () => server.stop(),
  };
  servers.push(onVllm);
  for (const s of [own, onVllm]) await pass(s, prompts.slice(0, 2), 1); // warm-up
  const passes: Pass[] = [];
  for (const parallel of [1, concurrency]) {
    const order = parallel === 1 ? [own, onVllm] : [onVllm, own];
    for (const s of order) passes.push(await pass(s, prompts, parallel));
  }
  const loadAfter = os.loadavg();
  const ratio = (mode: string) => {
    const base = passes.find((p) => p.server === own.label && p.mode === mode)!;
    const other = passes.find((p) => p.server === onVllm.label && p.mode === mode)!;
    return Number((other.tokensPerSecond / base.tokensPerSecond).toFixed(2));
  };
  const modes = [...new Set(passes.map((p) => p.mode))];
  const summary = {
    model: modelDir,
    prompts: prompts.length,
    promptTokens,
    maxTokens,
    passes,
    vllmOverOwn: Object.fromEntries(modes.map((m) => [m, ratio(m)])),
    loadAverage: loadAfter.map((l) => Number(l.toFixed(2))),
  };
  if (values.json) console.log(JSON.stringify(summary));
  else {
    console.table(passes);
    for (const m of modes) log(`vLLM / project's server, ${m}: ${ratio(m)}x tokens/s`);
    log(`load average after: ${summary.loadAverage.join(' ')}`);
  }
} finally {
  for (const s of servers.reverse()) await s.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
}

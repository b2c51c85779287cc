import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromRoot } from '../../core/paths.js';
import { loadConfig } from '../../workers/config.js';
import { sleep } from '../../infra/stack/process.js';
import { startVllm, vllmPython, type VllmServer } from '../../infra/vllm-server.js';
import { defaultPublishOptions, publishCheckpoint } from '../../runtime/clients/policy-admin.js';
import { freePort } from './index.js';

/**
 * Real vLLM in the tests. test/run.sh starts one server for the whole suite (vLLM takes ~40 s and ~3.5 GB to start)
 * and passes it in FINALSTATE_VLLM_URL, FINALSTATE_VLLM_MODEL (the served name) and FINALSTATE_VLLM_WEIGHTS (the model
 * directory it serves, a tiny random Qwen3 from python/finalstate/testing/tiny_model.py). A test file run on its own
 * starts one for itself. Tests that reload weights or set the weight version hold `lockVllm` meanwhile, since test
 * files may run in parallel, and leave the server as they found it.
 */

/** The calls a publish to vLLM makes, in order: identify, pause, mark, reload_weights, reset the prefix cache, set the
 * version, resume, measure the version's fingerprint and confirm the version it was measured on. */
export const VLLM_PUBLISH_PATHS = [
  '/v1/models',
  '/pause?mode=wait',
  '/update_weight_version',
  '/collective_rpc',
  '/reset_prefix_cache',
  '/update_weight_version',
  '/resume',
  '/v1/completions',
  '/weight_info',
];

export interface VllmTarget {
  url: string;
  model: string;
  /** The model directory the server was started on (the weights to restore). */
  weightsDir: string;
}

const config = loadConfig();
const projectPython = fromRoot(config.python.venv, 'bin', 'python');

/** vLLM's own count of the requests it is running (its Prometheus gauge `vllm:num_requests_running`). */
export async function requestsRunning(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(/^vllm:num_requests_running\{[^}]*\} ([0-9.e+]+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

/**
 * Freezes vLLM's scheduler (`/pause?mode=keep&clear_cache=false`: no step runs, a running request keeps its place and
 * its KV blocks, a new one waits; with vLLM 0.32's default `clear_cache=true` even `keep` preempts the running requests
 * to reset the prefix cache, and a later `/pause?mode=wait` would then not wait for them) and returns how many requests
 * it froze mid-generation: vLLM's running-requests gauge, read once the pause has answered. The engine publishes the gauge with every step's outputs (counted after that step's finished
 * requests are removed) and the pause answers once those outputs are out, so with no step running since, the gauge is
 * exact: 0 means whatever ran had ended first. `/resume` thaws it.
 */
export async function freezeScheduler(url: string): Promise<number> {
  const paused = await fetch(`${url}/pause?mode=keep&clear_cache=false`, { method: 'POST' });
  if (paused.status !== 200)
    throw new Error(`${url}/pause?mode=keep answered ${paused.status}: ${await paused.text()}`);
  return requestsRunning(url);
}

/**
 * A request frozen mid-generation, whatever the model's speed: `start()` sends it, then the scheduler is frozen and
 * thawed (`/resume`) in turn until vLLM's count, read while frozen, shows a request running, so the request only ever
 * gets the few steps between a thaw and the next freeze; one that ended in such a window (or before the first freeze)
 * is sent again. Returns with the scheduler frozen (`/resume` thaws it, a publish's `/pause?mode=wait` lets the request
 * finish) and the request's pending answer. Use it only while holding the server (`lockVllm`): any running request
 * counts.
 */
export async function freezeMidGeneration<T>(
  url: string,
  start: () => Promise<T>,
): Promise<{ answer: Promise<T>; sent: number; freezes: number }> {
  const track = (promise: Promise<T>) => {
    const state = { promise, ended: false };
    promise.then(
      () => (state.ended = true),
      () => (state.ended = true),
    );
    return state;
  };
  let request = track(start());
  let sent = 1;
  for (let freezes = 1; freezes <= 1000; freezes++) {
    if ((await freezeScheduler(url)) > 0) return { answer: request.promise, sent, freezes };
    const resumed = await fetch(`${url}/resume`, { method: 'POST' });
    if (resumed.status !== 200) throw new Error(`${url}/resume answered ${resumed.status}`);
    if (request.ended) {
      await request.promise.catch(() => undefined);
      request = track(start());
      sent += 1;
    }
  }
  throw new Error(`no request of ${sent} sent to ${url} was caught running in 1000 freezes`);
}

/** Writes the tiny test model (seed `seed`) into `dir` with the project's Python and returns its directory. */
export function buildTinyModel(dir: string, seed = 0): string {
  const built = spawnSync(
    projectPython,
    ['-m', 'finalstate.testing.tiny_model', dir, '--seed', String(seed), '--qwen3-chat-template'],
    { env: { ...process.env, PYTHONPATH: fromRoot('python') }, encoding: 'utf8' },
  );
  if (built.status !== 0) throw new Error(`building the tiny model failed: ${built.stderr}`);
  return (JSON.parse(built.stdout.trim().split('\n').pop()!) as { dir: string }).dir;
}

/**
 * Starts a vLLM of its own for a test (on a free port, logging next to the model); with `lora`, serving adapters up
 * to rank 8 beside the model (test/runtime/lora-adapters.test.ts).
 */
export async function startTestVllm(
  modelDir: string,
  servedModelName = 'tiny-qwen3',
  options: { lora?: boolean } = {},
): Promise<VllmServer> {
  return startVllm(vllmPython(config), {
    modelDir,
    servedModelName,
    port: await freePort(),
    logFile: path.join(path.dirname(modelDir), `vllm-${path.basename(modelDir)}.log`),
    weightVersion: '0',
    ...(options.lora ? { lora: { maxRank: 8 } } : {}),
  });
}

/**
 * The suite's vLLM, or one started for this file (then `close` stops it). A file that serves adapters gets one of its
 * own (`lora`): the suite's server runs without LoRA, since vLLM 0.32's CPU build with LoRA enabled can die on a
 * batch that mixes a `prompt_logprobs` request with another (`einsum()` in punica_cpu `add_lora_logits`,
 * EngineDeadError), which a publish's fingerprint beside a waiting completion makes (policy-admin.test.ts).
 */
export async function suiteVllm(options: { lora?: boolean } = {}): Promise<VllmTarget & { close(): Promise<void> }> {
  const url = process.env.FINALSTATE_VLLM_URL;
  if (url && !options.lora) {
    return {
      url,
      model: process.env.FINALSTATE_VLLM_MODEL ?? 'tiny-qwen3',
      weightsDir: process.env.FINALSTATE_VLLM_WEIGHTS ?? '',
      close: async () => undefined,
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-vllm-'));
  const server = await startTestVllm(buildTinyModel(path.join(dir, 'model')), 'tiny-qwen3', options);
  return {
    url: server.url,
    model: server.servedModelName,
    weightsDir: server.modelDir,
    close: async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Exclusive use of `target` across test processes (a lock directory beside the system's temp files); `release`
 * reloads the weights it was started on as version "0", so the next holder finds the server as it was.
 */
export async function lockVllm(target: VllmTarget): Promise<{ release(): Promise<void> }> {
  const lock = path.join(os.tmpdir(), `finalstate-vllm-${new URL(target.url).port}.lock`);
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      let alive = owner > 0;
      try {
        if (alive) process.kill(owner, 0);
      } catch {
        alive = false;
      }
      if (!alive && owner > 0) fs.rmSync(lock, { recursive: true, force: true });
      else await sleep(200);
    }
  }
  // A holder that failed between a pause and its resume leaves every later request waiting: say so, and serve again.
  const paused = (await fetch(`${target.url}/is_paused`)
    .then((r) => r.json())
    .catch(() => ({}))) as { is_paused?: boolean };
  if (paused.is_paused) {
    process.stderr.write(`lockVllm: ${target.url} was left paused by the previous holder; resuming it\n`);
    await fetch(`${target.url}/resume`, { method: 'POST' });
  }
  return {
    release: async () => {
      try {
        await publishCheckpoint({ url: target.url, kind: 'vllm' }, target.weightsDir, 0, defaultPublishOptions);
      } finally {
        fs.rmSync(lock, { recursive: true, force: true });
      }
    },
  };
}

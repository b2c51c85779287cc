import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { LoadedConfig } from '../schemas/config.js';
import { UserError } from '../core/errors.js';
import { type EpisodeRuntime } from '../runtime/episode/runtime.js';
import { createEpisodeRuntime } from './episode-runtime.js';
import type { TaskQueues } from '../schemas/pipeline.js';
import type { ModelPrices } from '../schemas/runtime.js';
import { startControlWorker } from './control.js';
import type { RunningWorker } from './temporal-worker.js';
import { startEpisodeWorker } from './episodes.js';
import { startVllm, vllmPython, type VllmServer } from '../infra/vllm-server.js';
import { spawnPythonModule, stopChild, waitUntilReady } from '../infra/python-module.js';
import { startPolicyServer } from '../infra/policy-server.js';

export interface MachineOptions {
  /** Names the log files. */
  name: string;
  queues: TaskQueues;
  /**
   * The checkpoint the policy server starts with and the policy version it reports; asked once the control worker
   * runs, since a resumed campaign's state comes from a query that worker answers.
   */
  policy: () => Promise<{ checkpointDir: string; version: number }>;
  port: number;
  servedModelName: string;
  maxBatchSize: number;
  batchWaitMs: number;
  threads: number;
  episodeConcurrency: number;
  /** What serves the rollouts: the project's own policy server or vLLM. */
  engine: 'finalstate' | 'vllm';
  /** vLLM's context length (default the model's own). */
  maxModelLen?: number;
  /** More arguments for vLLM. */
  vllmArgs?: string[];
  /** A LoRA campaign: the policy server serves adapters up to this rank beside the base model. */
  lora?: { maxRank: number };
  /** Ranks of the gpu worker; above 1 it runs under torchrun (gloo on the CPU). */
  gpuRanks: number;
  prices: ModelPrices;
  log: (line: string) => void;
}

/** Everything one machine runs for a campaign: policy server, gpu worker (Python), control and episode workers. */
export interface Machine {
  policyUrl: string;
  logs: { policyServer: string; gpuWorker: string };
  /** The gpu worker's process (torchrun's, when it runs sharded). */
  gpuWorker: ChildProcess;
  stop(): Promise<void>;
}

async function portAnswers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

export async function startMachine(config: LoadedConfig, options: MachineOptions): Promise<Machine> {
  const { log } = options;
  const policyUrl = `http://127.0.0.1:${options.port}`;
  if (await portAnswers(policyUrl)) {
    throw new UserError(
      `port ${options.port} already answers HTTP (${policyUrl}): another policy server (an earlier demo still running?) holds it; stop it or set policyServer.port in the preset`,
    );
  }
  const logDir = path.join(config.dataPath, 'logs');
  const logs = {
    policyServer: path.join(logDir, `${options.name}-policy-server.log`),
    gpuWorker: path.join(logDir, `${options.name}-gpu-worker.log`),
  };
  const children: ChildProcess[] = [];
  const workers: RunningWorker[] = [];
  let runtime: EpisodeRuntime | undefined;
  let vllm: VllmServer | undefined;
  const stop = async () => {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await runtime?.close().catch(() => undefined);
    await Promise.all([...children.map((c) => stopChild(c)), vllm?.stop()]);
  };
  let gpu: ChildProcess | undefined;
  try {
    workers.push(await startControlWorker(config, { taskQueue: options.queues.control }));
    const policy = await options.policy();
    // The gpu worker loads its model while the policy server starts; its log is appended across runs: readiness is
    // judged on what this run wrote.
    const gpuLogStart = fs.existsSync(logs.gpuWorker) ? fs.statSync(logs.gpuWorker).size : 0;
    gpu = startGpuWorker(config, options, logs.gpuWorker);
    children.push(gpu);
    if (options.engine === 'vllm') {
      log('policy server: starting vLLM (about a minute)…');
      vllm = await startVllm(vllmPython(config), {
        modelDir: policy.checkpointDir,
        servedModelName: options.servedModelName,
        port: options.port,
        logFile: logs.policyServer,
        weightVersion: String(policy.version),
        ...(options.maxModelLen !== undefined ? { maxModelLen: options.maxModelLen } : {}),
        ...(options.vllmArgs ? { extraArgs: options.vllmArgs } : {}),
        ...(options.lora ? { lora: options.lora } : {}),
      });
      log(
        `policy server: vLLM ${policyUrl} (pid ${vllm.pid}, policy version ${policy.version}; log ${path.relative(process.cwd(), logs.policyServer)})`,
      );
    } else await startPolicyServer(config, options, policy, logs.policyServer, children, log);
    const gpuQueue = options.queues.gpu;
    const worker = gpu;
    await waitUntilReady(
      'gpu worker',
      worker,
      logs.gpuWorker,
      async () =>
        fs
          .readFileSync(logs.gpuWorker)
          .subarray(gpuLogStart)
          .toString('utf8')
          .includes(`gpu worker ready on task queue ${gpuQueue}`),
      300_000,
    );
    // Episodes start only once the policy server answers: earlier, they would spend their retries on a refused connection.
    runtime = await createEpisodeRuntime(config, {
      controlConnections: Math.max(4, options.episodeConcurrency),
      prices: options.prices,
      // Creating an episode database is most of an episode's overhead (bench/episodes.ts); spares made
      // in the background while the policy thinks take it off the episode's path.
      backend: { sparesPerTemplate: Math.max(1, Math.ceil(options.episodeConcurrency / 4)) },
    });
    workers.push(
      await startEpisodeWorker(config, {
        runner: runtime.runner,
        taskQueue: options.queues.episodes,
        concurrency: options.episodeConcurrency,
        shutdownGraceTime: '10 seconds',
      }),
    );
    log(
      `workers: control, episodes (${options.episodeConcurrency} at once), gpu (Python) on task queues ${options.queues.control}, ${options.queues.episodes}, ${options.queues.gpu}`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { policyUrl, logs, gpuWorker: gpu, stop };
}

/**
 * The Python gpu worker: one process, or `torchrun --standalone --nproc-per-node N` (rank 0 the Temporal worker, the
 * model FSDP2-sharded over gloo when there is no CUDA). torchrun restarts every rank once when one dies.
 */
function startGpuWorker(config: LoadedConfig, options: MachineOptions, logFile: string): ChildProcess {
  const args = gpuWorkerArgs(config, options.queues.gpu);
  if (options.gpuRanks === 1) return spawnPythonModule(config, 'finalstate.gpu_worker', args, logFile);
  const torchrun = ['-m', 'torch.distributed.run', '--standalone', '--nproc-per-node', String(options.gpuRanks)];
  return spawnPythonModule(config, 'finalstate.gpu_worker', args, logFile, [...torchrun, '--max-restarts', '1'], {
    OMP_NUM_THREADS: '1',
  });
}

/** The arguments of `python -m finalstate.gpu_worker`: its task queue and the Temporal server it polls. */
export function gpuWorkerArgs(config: LoadedConfig, taskQueue: string): string[] {
  return ['--task-queue', taskQueue, '--address', config.temporal.address, '--namespace', config.temporal.namespace];
}

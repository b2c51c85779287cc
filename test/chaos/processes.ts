import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedConfig } from '../../schemas/config.js';
import { fromRoot } from '../../core/paths.js';
import { policyAdminTokenFile } from '../../runtime/clients/admin-token.js';
import { sleep } from '../../infra/stack/process.js';
import { gpuWorkerArgs } from '../../workers/machine.js';

/**
 * One process of the machine as an operator's supervisor sees it: started, killed (any signal), started again with the
 * same command line, each start judged ready by its own log (appended across starts) or a probe.
 */
export class Supervised {
  private child: ChildProcess | undefined;
  private expectExit = false;
  starts = 0;
  /** Exits nobody asked for (a crash): the supervisor restarts the process, and the run reports them. */
  crashes: string[] = [];

  constructor(
    readonly name: string,
    private readonly command: () => Promise<{ file: string; args: string[] }>,
    private readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
    private readonly ready: { line?: RegExp; probe?: () => Promise<boolean> },
    private readonly readyTimeoutMs = 180_000,
  ) {}

  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    const { file, args } = await this.command();
    fs.mkdirSync(path.dirname(this.logFile), { recursive: true });
    const from = fs.existsSync(this.logFile) ? fs.statSync(this.logFile).size : 0;
    const out = fs.openSync(this.logFile, 'a');
    const child = spawn(file, args, { env: this.env, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    this.child = child;
    this.expectExit = false;
    this.starts += 1;
    child.once('exit', (code, signal) => {
      if (!this.expectExit)
        this.crashes.push(
          `${this.name} (pid ${child.pid}, start ${this.starts}) exited on its own: ${code ?? signal}; log ${this.logFile}`,
        );
    });
    const deadline = Date.now() + this.readyTimeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `${this.name} exited (${child.exitCode ?? child.signalCode}) before it was ready; log ${this.logFile}:\n${this.logSince(from).slice(-3000)}`,
        );
      }
      const lineOk = !this.ready.line || this.ready.line.test(this.logSince(from));
      if (lineOk && (!this.ready.probe || (await this.ready.probe().catch(() => false)))) return;
      if (Date.now() > deadline)
        throw new Error(`${this.name} not ready after ${this.readyTimeoutMs / 1000} s; log ${this.logFile}`);
      await sleep(200);
    }
  }

  private logSince(offset: number): string {
    return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile).subarray(offset).toString('utf8') : '';
  }

  /** Sends `signal` and waits for the exit (SIGKILL: no handler, no cleanup, no goodbye to Temporal). */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.expectExit = true;
    child.kill(signal);
    await exited;
  }

  /** Sends `signal` and returns at once (SIGSTOP, SIGCONT: the process lives on). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child!.kill(signal);
  }

  /** Graceful stop: SIGTERM, SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 20_000): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.expectExit = true;
    child.kill('SIGCONT'); // a paused process would not see the SIGTERM
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}

const script = (name: string) => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

export interface ChaosMachineOptions {
  queues: { control: string; episodes: string; gpu: string };
  /** One policy server per port: the rollout fleet (one port: the single policy server of a synchronous campaign). */
  policyPorts: number[];
  episodeConcurrency: number;
  /** The checkpoint and version a policy server serves when it (re)starts. */
  policy: () => Promise<{ checkpointDir: string; version: number }>;
  policyServer: { maxBatchSize: number; batchWaitMs: number; threads: number };
  servedModelName: string;
  /**
   * The address through which the first episode worker reaches Temporal (a TcpProxy the driver can cut, to partition
   * that worker from Temporal alone); the second one connects directly.
   */
  episodesTemporalAddress: string;
}

export interface ChaosMachine {
  control: Supervised;
  /** The episode worker the episode faults hit (its Temporal connection runs through the driver's proxy). */
  episodes: Supervised;
  /** A second episode worker on the same queue, where Temporal retries what the first one can no longer run. */
  episodes2: Supervised;
  gpu: Supervised;
  /** The first policy server (the only one of a synchronous campaign). */
  policyServer: Supervised;
  /** Every policy server, in the order of `policyPorts`, and the URL of each. */
  policyServers: Supervised[];
  policyUrls: string[];
  all: Supervised[];
}

/** The processes `finalstate demo` runs for a campaign, each its own OS process, in the demo's start order. */
export function chaosMachine(
  config: LoadedConfig,
  env: Record<string, string>,
  options: ChaosMachineOptions,
): ChaosMachine {
  const childEnv = {
    ...process.env,
    ...env,
    FINALSTATE_LOG_LEVEL: process.env.FINALSTATE_LOG_LEVEL ?? 'WARN',
    PYTHONPATH: fromRoot('python'),
  };
  const logs = path.join(config.dataPath, 'logs');
  const python = fromRoot(config.python.venv, 'bin', 'python');
  const node = (name: string, args: string[]) => async () => ({
    file: process.execPath,
    args: [script(name), ...args],
  });
  const control = new Supervised(
    'control worker',
    node('control-worker', [options.queues.control]),
    childEnv,
    path.join(logs, 'chaos-control-worker.log'),
    { line: /chaos control worker ready/ },
  );
  const episodeWorker = (name: string, log: string, env: Record<string, string>) =>
    new Supervised(
      name,
      node('episode-worker', [options.queues.episodes, String(options.episodeConcurrency)]),
      { ...childEnv, ...env },
      path.join(logs, log),
      { line: /chaos episode worker ready/ },
    );
  const episodes = episodeWorker('episode worker', 'chaos-episode-worker.log', {
    TEMPORAL_ADDRESS: options.episodesTemporalAddress,
    FINALSTATE_TEMPORAL_ADDRESS: options.episodesTemporalAddress,
  });
  const episodes2 = episodeWorker('second episode worker', 'chaos-episode-worker-2.log', {});
  const gpu = new Supervised(
    'gpu worker',
    async () => ({
      file: python,
      args: ['-m', 'finalstate.gpu_worker', ...gpuWorkerArgs(config, options.queues.gpu)],
    }),
    childEnv,
    path.join(logs, 'chaos-gpu-worker.log'),
    { line: new RegExp(`gpu worker ready on task queue ${options.queues.gpu}`) },
  );
  const policyServerAt = (port: number, index: number) => {
    const url = `http://127.0.0.1:${port}`;
    return new Supervised(
      index === 0 ? 'policy server' : `policy server ${index + 1}`,
      async () => {
        const policy = await options.policy();
        const s = options.policyServer;
        return {
          file: python,
          args: [
            '-m',
            'finalstate.policy_server',
            '--model',
            policy.checkpointDir,
            '--port',
            String(port),
            '--served-model-name',
            options.servedModelName,
            '--policy-version',
            String(policy.version),
            '--max-batch-size',
            String(s.maxBatchSize),
            '--batch-wait-ms',
            String(s.batchWaitMs),
            '--threads',
            String(s.threads),
            '--admin-token-file',
            policyAdminTokenFile(config.dataPath),
          ],
        };
      },
      childEnv,
      path.join(logs, index === 0 ? 'chaos-policy-server.log' : `chaos-policy-server-${index + 1}.log`),
      { probe: async () => (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })).ok },
    );
  };
  const policyServers = options.policyPorts.map(policyServerAt);
  return {
    control,
    episodes,
    episodes2,
    gpu,
    policyServer: policyServers[0]!,
    policyServers,
    policyUrls: options.policyPorts.map((port) => `http://127.0.0.1:${port}`),
    all: [control, ...policyServers, gpu, episodes, episodes2],
  };
}

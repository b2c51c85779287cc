import { spawn, spawnSync } from 'node:child_process';
import { fromRoot } from '../../core/paths.js';

export { freePort, uniqueName } from '../../testkit/names.js';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `finalstate` CLI (bin/finalstate.js) in a child process. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
  const res = spawnSync(process.execPath, [fromRoot('bin', 'finalstate.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 180_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
}

/** runCli without blocking the event loop, so that several run at once (each mostly loads modules and waits). */
export function runCliAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fromRoot('bin', 'finalstate.js'), ...args], {
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

/** `fn` over `items`, `size` at a time, results in order. */
export async function inBatches<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

/** Starts a long-running child and resolves once a line of its output matches `ready`. */
export function startProcess(
  command: string,
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} not ready after ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before it was ready:\n${output}`));
    });
  });
  /** SIGTERM, then the exit code (null when it died of a signal). */
  const stop = async (): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    return await exited;
  };
  return { child, started, stop, output: () => output };
}

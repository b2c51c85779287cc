import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { InfrastructureError, UserError } from '../core/errors.js';
import { fromRoot } from '../core/paths.js';
import type { LoadedConfig } from '../schemas/config.js';
import { sleep } from './stack/process.js';

export interface PythonModuleRun<T extends z.ZodType> {
  /** `python -m <module>` */
  module: string;
  args?: string[];
  /** Written to its stdin as JSON (absent: stdin is closed). */
  input?: unknown;
  /** The schema of the JSON line it prints last. */
  result: T;
  /** What it is, for messages ("model import"). */
  what: string;
  /** Each stderr line (progress logging). */
  log?: (line: string) => void;
  /** Exit codes that mean bad input ('any': every failure), reported as a UserError with the module's stderr. */
  userErrorCodes?: readonly number[] | 'any';
}

/** Run a module of the project's Python package in the stack's venv and read the JSON result it prints last. */
export function runPythonModule<T extends z.ZodType>(
  config: LoadedConfig,
  run: PythonModuleRun<T>,
): Promise<z.infer<T>> {
  const python = fromRoot(config.python.venv, 'bin', 'python');
  if (!fs.existsSync(python)) throw new UserError(`${run.what}: Python not found at ${python}; run \`npm run setup\``);
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-m', run.module, ...(run.args ?? [])], {
      env: { ...process.env, PYTHONPATH: fromRoot('python') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderrTail = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      stderrTail = (stderrTail + text).slice(-4000);
      if (run.log) for (const line of text.split(/[\r\n]/)) if (line.trim()) run.log(line);
    });
    child.on('error', (err) =>
      reject(new InfrastructureError(`${run.what} could not start: ${err.message}`, 'python')),
    );
    child.on('close', (code) => {
      if (code !== 0) {
        const message = `${run.what} failed (exit ${code}):\n${stderrTail}`;
        return reject(
          run.userErrorCodes === 'any' || (run.userErrorCodes ?? []).includes(code ?? -1)
            ? new UserError(message)
            : new InfrastructureError(message, 'python'),
        );
      }
      let parsed: z.ZodSafeParseResult<z.infer<T>> | undefined;
      try {
        parsed = run.result.safeParse(JSON.parse(stdout.trim().split('\n').pop() ?? 'null'));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success)
        return reject(new InfrastructureError(`${run.what} printed no result: ${stdout.slice(-500)}`, 'python'));
      resolve(parsed.data);
    });
    child.stdin.end(run.input === undefined ? '' : JSON.stringify(run.input));
  });
}

/** A long-running module of the project's Python package in the stack's venv, its output appended to `logFile`. */
export function spawnPythonModule(
  config: LoadedConfig,
  module: string,
  args: string[],
  logFile: string,
  launcher: string[] = [],
  env: NodeJS.ProcessEnv = {},
): ChildProcess {
  const python = fromRoot(config.python.venv, 'bin', 'python');
  if (!fs.existsSync(python)) throw new UserError(`Python not found at ${python}; run \`npm run setup\``);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const out = fs.openSync(logFile, 'a');
  const child = spawn(python, [...launcher, '-m', module, ...args], {
    env: { ...process.env, PYTHONPATH: fromRoot('python'), ...env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  return child;
}

/** Waits until `ready` holds, failing early (with the log's tail) if the process exits first. */
export async function waitUntilReady(
  what: string,
  child: ChildProcess,
  logFile: string,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
      throw new InfrastructureError(
        `${what} exited (${child.exitCode ?? child.signalCode}) before it was ready; log ${logFile}:\n${tail}`,
        what,
      );
    }
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new InfrastructureError(`${what} not ready after ${timeoutMs / 1000} s; log ${logFile}`, what);
    await sleep(300);
  }
}

/** SIGTERM, then SIGKILL if it has not exited after `timeoutMs`. */
export async function stopChild(child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

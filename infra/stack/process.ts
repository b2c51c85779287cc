import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { InfrastructureError } from '../../core/errors.js';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readPid(pidFile: string): number | undefined {
  if (!fs.existsSync(pidFile)) return undefined;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Command line of a running process, so we never signal a recycled pid that is not ours. */
export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Start a long-running daemon detached from us, logging to a file, and record its pid. */
export function startDaemon(opts: {
  command: string;
  args: string[];
  pidFile: string;
  logFile: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}): number {
  fs.mkdirSync(path.dirname(opts.pidFile), { recursive: true });
  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const log = fs.openSync(opts.logFile, 'a');
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  if (child.pid === undefined)
    throw new InfrastructureError(`could not start ${opts.command}`, path.basename(opts.command));
  child.unref();
  fs.writeFileSync(opts.pidFile, `${child.pid}\n`);
  return child.pid;
}

/** Stop a daemon we started (pid file + matching command line); returns whether something was stopped. */
export async function stopDaemon(pidFile: string, expectInCommand: string, timeoutMs = 15000): Promise<boolean> {
  const pid = readPid(pidFile);
  if (pid === undefined) return false;
  if (!isAlive(pid) || !commandLine(pid).includes(expectInCommand)) {
    fs.rmSync(pidFile, { force: true });
    return false;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  fs.rmSync(pidFile, { force: true });
  return true;
}

export function run(
  command: string,
  args: string[],
  options: SpawnSyncOptions = {},
): { status: number; stdout: string; stderr: string } {
  const res = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (res.error)
    throw new InfrastructureError(`${command}: ${res.error.message}`, path.basename(command), { cause: res.error });
  return { status: res.status ?? -1, stdout: String(res.stdout ?? ''), stderr: String(res.stderr ?? '') };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(intervalMs);
  }
  throw new InfrastructureError(`${what} did not become healthy within ${Math.round(timeoutMs / 1000)} s`, what);
}

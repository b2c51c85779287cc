import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { z } from 'zod';
import { InfrastructureError, UserError } from '../core/errors.js';
import { fromRoot } from '../core/paths.js';
import type { LoadedConfig } from '../schemas/config.js';

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

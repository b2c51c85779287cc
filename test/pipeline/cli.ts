import { execFile } from 'node:child_process';
import { fromRoot } from '../../core/paths.js';
import type { CliResult } from '../helpers/index.js';

/**
 * The real `finalstate` CLI in a child process, without blocking this process: the workers answering the CLI's
 * queries run here, so spawnSync (runCli) would deadlock them.
 */
export function runCliAsync(args: string[], timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [fromRoot('bin', 'finalstate.js'), ...args],
      { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const status = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : -1
          : 0;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

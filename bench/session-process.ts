// The reference anchor of bench/episodes.ts: the reference (microsoft/thinkingbox) starts a fresh Python process per
// session. Here each session is `.venv/bin/python -c` importing what a session's tool server would (the MCP stack's
// pydantic, anyio and httpx; no PostgreSQL driver is installed in the venv) and exiting, `concurrency` at once.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fromRoot } from '../core/paths.js';
import { mean, quantile } from './fan-out-history.js';

export const SESSION_IMPORTS = 'import asyncio, json, sqlite3, pydantic, anyio, httpx';

function startSession(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(fromRoot('.venv', 'bin', 'python'), ['-c', SESSION_IMPORTS], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`session process exited with ${code}`)),
    );
  });
}

/** `sessions` process starts, `concurrency` at a time: each one's wall time and the slot each held. */
export async function sessionProcesses(sessions: number, concurrency: number) {
  const walls: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, sessions) }, async () => {
      while (next < sessions) {
        next += 1;
        walls.push(await startSession());
      }
    }),
  );
  const phaseMs = performance.now() - t0;
  return {
    sessions,
    meanMs: mean(walls),
    p95Ms: quantile(walls, 0.95),
    slotMsPerSession: (phaseMs * Math.min(concurrency, sessions)) / sessions,
  };
}

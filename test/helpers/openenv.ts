import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { fromRoot } from '../../core/paths.js';
import { OPENENV_PYTHON } from '../../environment/openenv/bridge.js';
import { waitFor } from '../../infra/stack/process.js';

/** The small OpenEnv environment of the tests (test/fixtures/openenv/ledger_env.py, on OpenEnv's server framework). */
export const LEDGER_ENV = fromRoot('test', 'fixtures', 'openenv', 'ledger_env.py');

/** What the ledger server printed: a reset, a held step, a terminal step. */
export interface LedgerEvent {
  event: 'reset' | 'hold' | 'done';
  episode_id: string;
  task_id?: string;
  reward?: number | null;
  finish_reason?: string;
}

/**
 * One ledger server process on `port`, its events collected in order. `holdMatch`: the first agent action of the first
 * episode whose OpenEnv episode id contains it is held, never answered (LEDGER_HOLD_MATCH).
 */
export class LedgerServer {
  readonly events: LedgerEvent[] = [];
  private process: ChildProcess | undefined;
  private waiters: { check: (e: LedgerEvent) => boolean; resolve: (e: LedgerEvent) => void }[] = [];

  constructor(readonly port: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Start it and wait until its /health answers. */
  async start(options: { holdMatch?: string } = {}): Promise<void> {
    const child = spawn(OPENENV_PYTHON, [LEDGER_ENV, '--port', String(this.port)], {
      env: {
        ...process.env,
        PYTHONUNBUFFERED: '1',
        ...(options.holdMatch ? { LEDGER_HOLD_MATCH: options.holdMatch } : {}),
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    this.process = child;
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      let e: LedgerEvent;
      try {
        e = JSON.parse(line) as LedgerEvent;
      } catch {
        return;
      }
      this.events.push(e);
      for (const w of this.waiters.filter((w) => w.check(e))) w.resolve(e);
      this.waiters = this.waiters.filter((w) => !w.check(e));
    });
    await waitFor(
      'ledger OpenEnv server',
      async () => {
        if (child.exitCode !== null) throw new Error(`the ledger server exited with ${child.exitCode}`);
        return (await fetch(`${this.url}/health`)).ok;
      },
      60_000,
    );
  }

  /** The first event (already seen or still to come) that `check` accepts. */
  next(check: (e: LedgerEvent) => boolean): Promise<LedgerEvent> {
    const seen = this.events.find(check);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ check, resolve }));
  }

  /** SIGKILL, as a crashed server; resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

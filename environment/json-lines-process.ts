import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import readline from 'node:readline';
import { InfrastructureError } from '../core/errors.js';

export interface JsonLinesProcessOptions {
  /** What it is, in messages ("thinkingbox sidecar"). */
  name: string;
  /** The InfrastructureError component of its failures. */
  component: string;
  command: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  /**
   * ordered: one request at a time, each answered by the next line (a request waits for the one before it).
   * concurrent: every request carries an `id` and may be answered in any order, so a slow one holds up no other.
   */
  mode: 'ordered' | 'concurrent';
}

interface Pending {
  what: string;
  resolve(answer: unknown): void;
  reject(err: Error): void;
  timer?: NodeJS.Timeout;
}

/**
 * A long-lived child process that answers one JSON request a line on its stdin with one JSON line on its stdout: the
 * Python sidecars run in other projects' venvs (ThinkingBox's, OpenEnv's). It starts on the first request; when it
 * dies, every request in flight fails as infrastructure (naming its stderr's tail) and the next request starts it
 * again.
 */
export class JsonLinesProcess {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending = new Map<string, Pending>();
  private nextId = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private stderrTail = '';

  constructor(private readonly options: JsonLinesProcessOptions) {}

  /**
   * Send `payload` (with an `id` added in concurrent mode) and resolve with the answer line, parsed; its `id` is the
   * request's. `timeoutMs`: past it the request fails as infrastructure (in ordered mode the process, stuck, is
   * stopped: the next request starts a fresh one).
   */
  request(payload: Record<string, unknown>, options: { what?: string; timeoutMs?: number } = {}): Promise<unknown> {
    const what = options.what ?? String(payload.op ?? 'a request');
    if (this.options.mode === 'concurrent') return this.exchange(payload, what, options.timeoutMs);
    const run = this.queue.then(() => this.exchange(payload, what, options.timeoutMs));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private exchange(payload: Record<string, unknown>, what: string, timeoutMs: number | undefined): Promise<unknown> {
    const child = this.start();
    const id = String(this.nextId++);
    return new Promise((resolve, reject) => {
      const entry: Pending = { what, resolve, reject };
      if (timeoutMs !== undefined) {
        entry.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(this.failure(`${this.options.name} did not answer ${what} within ${Math.round(timeoutMs / 1000)} s`));
          if (this.options.mode === 'ordered') child.kill('SIGKILL');
        }, timeoutMs);
        entry.timer.unref();
      }
      this.pending.set(id, entry);
      const line = this.options.mode === 'concurrent' ? { ...payload, id } : payload;
      child.stdin.write(`${JSON.stringify(line)}\n`);
    });
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    let answer: unknown;
    try {
      answer = JSON.parse(line);
    } catch {
      if (this.options.mode === 'ordered')
        this.settle([...this.pending.keys()][0], (p) =>
          p.reject(
            this.failure(`${this.options.name} answered ${p.what} with a line that is not JSON: ${line.slice(0, 200)}`),
          ),
        );
      else this.stderrTail = `${this.stderrTail}\n(stdout) ${line.slice(0, 500)}`.slice(-4000);
      return;
    }
    const id =
      this.options.mode === 'ordered'
        ? [...this.pending.keys()][0]
        : String((answer as { id?: unknown } | null)?.id ?? '');
    this.settle(id, (p) => p.resolve(answer));
  }

  private settle(id: string | undefined, fn: (p: Pending) => void): void {
    const entry = id === undefined ? undefined : this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id!);
    clearTimeout(entry.timer);
    fn(entry);
  }

  private failure(message: string): InfrastructureError {
    return new InfrastructureError(message, this.options.component);
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return this.child;
    const child = spawn(this.options.command, [...this.options.args], {
      env: { ...process.env, ...this.options.env, PYTHONUNBUFFERED: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.stderrTail = '';
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4000);
    });
    child.stdin.on('error', () => undefined);
    child.on('error', (err) => this.onExit(child, err.message));
    child.on('exit', (code, signal) => this.onExit(child, signal ? `signal ${signal}` : `exit code ${code}`));
    readline.createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      if (this.child === child) this.onLine(line);
    });
    this.child = child;
    return child;
  }

  /** The process is gone: every request in flight fails; the next one starts a fresh process. */
  private onExit(child: ChildProcessWithoutNullStreams, how: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    const tail = this.stderrTail.trim().slice(-800) || '(no output)';
    for (const id of [...this.pending.keys()])
      this.settle(id, (p) => p.reject(this.failure(`${this.options.name} exited (${how}) during ${p.what}: ${tail}`)));
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    for (const id of [...this.pending.keys()])
      this.settle(id, (p) => p.reject(this.failure(`${this.options.name} was closed during ${p.what}`)));
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, 2000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

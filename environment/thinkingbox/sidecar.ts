import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import readline from 'node:readline';
import type { z } from 'zod';
import { InfrastructureError, UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { SidecarFailure, type SidecarRequest } from '../../schemas/thinkingbox.js';

/** A failure the sidecar reports about a task (a malformed test file or body): the task's fault, not the stack's. */
export class MalformedThinkingBoxTask extends UserError {
  override name = 'MalformedThinkingBoxTask';
}

/** Failure kinds that are the task's fault; every other kind is infrastructure (retried, never scored). */
const TASK_FAULTS = new Set(['malformed']);

/**
 * ThinkingBox's own code, run in its own venv: the Python sidecar `finalstate_thinkingbox`, a long-lived process
 * answering one JSON request a line (hydrate test cases, grade an episode with ThinkingBox's test runner and Judge,
 * simulate its user). Requests are answered in order, one at a time; a sidecar that dies is started again for the
 * next request, and the request in flight fails as infrastructure.
 */
export class ThinkingBoxSidecar {
  private child: ChildProcessWithoutNullStreams | undefined;
  private lines: AsyncIterator<string> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private stderrTail = '';

  constructor(
    private readonly python: string,
    private readonly env: NodeJS.ProcessEnv = {},
  ) {}

  /** Send one request and parse its answer with `schema`; a failure answer throws (MalformedThinkingBoxTask or InfrastructureError). */
  request<S extends z.ZodType>(request: SidecarRequest, schema: S): Promise<z.infer<S>> {
    const run = this.queue.then(() => this.exchange(request, schema));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async exchange<S extends z.ZodType>(request: SidecarRequest, schema: S): Promise<z.infer<S>> {
    const lines = this.start();
    const child = this.child!;
    child.stdin.write(`${JSON.stringify(request)}\n`);
    const next = await lines.next();
    if (next.done) {
      this.child = undefined;
      throw new InfrastructureError(
        `thinkingbox sidecar exited during ${request.op}: ${this.stderrTail.trim().slice(-800) || '(no output)'}`,
        'thinkingbox-sidecar',
      );
    }
    let answer: unknown;
    try {
      answer = JSON.parse(next.value);
    } catch {
      throw new InfrastructureError(
        `thinkingbox sidecar answered ${request.op} with a line that is not JSON: ${next.value.slice(0, 200)}`,
        'thinkingbox-sidecar',
      );
    }
    const failure = SidecarFailure.safeParse(answer);
    if (failure.success) {
      const { kind, message } = failure.data;
      if (TASK_FAULTS.has(kind)) throw new MalformedThinkingBoxTask(message);
      throw new InfrastructureError(`thinkingbox sidecar: ${request.op}: ${kind}: ${message}`, `thinkingbox-${kind}`);
    }
    const parsed = schema.safeParse(answer);
    if (!parsed.success)
      throw new InfrastructureError(
        `thinkingbox sidecar answered ${request.op} in an unexpected shape: ${parsed.error.message.slice(0, 500)}`,
        'thinkingbox-sidecar',
      );
    return parsed.data;
  }

  private start(): AsyncIterator<string> {
    if (this.child && this.lines && this.child.exitCode === null) return this.lines;
    const child = spawn(this.python, ['-m', 'finalstate_thinkingbox'], {
      env: { ...process.env, ...this.env, PYTHONPATH: fromRoot('python'), PYTHONUNBUFFERED: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4000);
    });
    child.on('error', () => undefined);
    this.child = child;
    this.lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]();
    return this.lines;
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
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

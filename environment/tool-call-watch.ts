import type pg from 'pg';

/**
 * How long after a statement's start its session counts as stuck, beyond the statement timeout the server enforces:
 * the cancel and its answer take a moment on a busy machine, never seconds.
 */
export const STUCK_GRACE_MS = 5_000;

/** How often a watch looks at its call. */
const TICK_MS = 100;

/**
 * Why a watched tool call was ended before it settled:
 * - `tool`: its handler ran past the tool-call timeout (the tool's fault: slow or hung in its own code);
 * - `budget`: its handler ran past the time budget its caller gave it (the episode's clock ran out);
 * - `stuck`: a statement of it went unanswered past the statement timeout plus a grace, which a healthy server never
 *   lets happen: a stuck connection or server, an infrastructure failure.
 */
export type CutReason = 'tool' | 'budget' | 'stuck';

export class ToolCallCut extends Error {
  override name = 'ToolCallCut';
  constructor(
    readonly reason: CutReason,
    message: string,
  ) {
    super(message);
  }
}

export interface WatchOptions {
  /** When the handler must be done, and what set that moment: the tool-call timeout or the caller's budget. */
  deadline: number;
  deadlineReason: 'tool' | 'budget';
  /** The server's statement_timeout (0: none, and then no statement can be told stuck). */
  statementTimeoutMs: number;
}

/**
 * Watches one tool call's session: every statement sent through `track(client)` is timed, `run` races a piece of the
 * call against the watch. While the handler runs (`run(…, 'handler')`) the deadline ends it; once it has returned,
 * the executor's own statements (record, COMMIT) are let finish, because a call cut between its COMMIT and the answer
 * would leave an effect the caller never heard of. A statement of either unanswered past the statement timeout plus
 * STUCK_GRACE_MS ends the call as stuck; a deadline that passes while a statement is in flight waits for that
 * statement to be answered or to become stuck, so a slow statement (the server cancels it) is never taken for a stuck
 * one.
 */
export class ToolCallWatch {
  private readonly inFlight = new Map<number, number>();
  private nextStatement = 0;

  constructor(private readonly options: WatchOptions) {}

  /** The client, with every `query` that returns a promise timed. */
  track<C extends pg.ClientBase>(client: C): C {
    return new Proxy(client, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        if (prop !== 'query') return value.bind(target);
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (result && typeof (result as Promise<unknown>).then === 'function') {
            const id = this.nextStatement++;
            this.inFlight.set(id, performance.now());
            const done = () => this.inFlight.delete(id);
            (result as Promise<unknown>).then(done, done);
          }
          return result;
        };
      },
    });
  }

  /** Milliseconds the oldest statement in flight has waited, or undefined when none is. */
  private oldestStatementMs(now: number): number | undefined {
    let oldest: number | undefined;
    for (const started of this.inFlight.values()) oldest = oldest === undefined ? started : Math.min(oldest, started);
    return oldest === undefined ? undefined : now - oldest;
  }

  /** Settles like `work`, unless the watch ends the call first (rejecting with ToolCallCut). */
  run<T>(work: Promise<T>, phase: 'handler' | 'settle'): Promise<T> {
    work.catch(() => undefined); // an abandoned handler may fail later; nobody is waiting for it then
    const { deadline, deadlineReason, statementTimeoutMs } = this.options;
    let atDeadline: number[] | undefined;
    return new Promise<T>((resolve, reject) => {
      const timer = setInterval(() => {
        const now = performance.now();
        const waited = this.oldestStatementMs(now);
        if (statementTimeoutMs > 0 && waited !== undefined && waited > statementTimeoutMs + STUCK_GRACE_MS) {
          clearInterval(timer);
          reject(
            new ToolCallCut(
              'stuck',
              `a statement has had no answer for ${Math.round(waited)} ms, past the statement timeout (${statementTimeoutMs} ms) and a ${STUCK_GRACE_MS} ms grace: a stuck connection or server`,
            ),
          );
          return;
        }
        if (phase !== 'handler' || now < deadline) return;
        // the statements in flight at the deadline are the server's to end (statement_timeout): they are waited for,
        // or found stuck; whatever the handler starts after the deadline is not
        atDeadline ??= statementTimeoutMs > 0 ? [...this.inFlight.keys()] : [];
        if (atDeadline.some((id) => this.inFlight.has(id))) return;
        clearInterval(timer);
        reject(new ToolCallCut(deadlineReason, 'past its deadline'));
      }, TICK_MS);
      work.then(
        (value) => {
          clearInterval(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearInterval(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}

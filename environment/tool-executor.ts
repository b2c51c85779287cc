import type pg from 'pg';
import { z } from 'zod';
import { canonicalJson } from './canonical.js';
import type { EnvironmentBackend, Episode } from './backend.js';
import { isToolRejection, type ToolContext, type ToolDefinition } from './domain.js';
import { asInfrastructureError, isInfrastructureFault } from './pg-faults.js';
import { ToolCallCut, ToolCallWatch } from './tool-call-watch.js';
import { describeJsonExcess, exceedsJsonBounds, TOOL_ARGUMENT_BOUNDS } from '../core/json-bounds.js';
import { InfrastructureError } from '../core/errors.js';

/**
 * What the agent sees of one tool call. `callIndex` is the index the call consumed: present when it ran (and is
 * recorded, errors included), absent when it was refused before running (unknown tool, invalid arguments), which
 * consumes no index and has no effect, so repeating it on a resumed attempt is harmless.
 */
export type ToolOutcome =
  { callIndex: number; isError: false; result: unknown } | { callIndex?: number; isError: true; message: string };

/** A tool call as recorded in the episode database, in the same transaction as its writes. */
export interface RecordedToolCall {
  callIndex: number;
  tool: string;
  arguments: Record<string, unknown>;
  isError: boolean;
  result: unknown;
  message: string | null;
}

/** The handler threw something that is neither a rejection nor an outage: a bug in the tool. Nothing was kept. */
export class ToolFault extends Error {
  override name = 'ToolFault';
}

/**
 * The call was stopped because the time its caller gave it (`budgetMs`: what was left of the episode's clock) ran
 * out. Nothing was kept; the caller ends the episode on its clock.
 */
export class ToolCallPastBudget extends Error {
  override name = 'ToolCallPastBudget';
}

/**
 * A caller's call index disagrees with the episode's records (it skips ahead, or names a different recorded call): the
 * two sides lost track of each other. It is not the agent's mistake, so it never reaches the agent as a tool error.
 */
export class ToolCallIndexConflict extends Error {
  override name = 'ToolCallIndexConflict';
}

/**
 * Errors raised while a tool runs that refuse the request's values: data exceptions (SQLSTATE 22xxx), integrity
 * violations (23xxx) and program limits such as an index row over the btree maximum (54xxx).
 */
const isValueRefusal = (err: unknown) => /^(22|23|54)/.test(String((err as { code?: unknown }).code ?? ''));

/**
 * What PostgreSQL text and jsonb cannot store: U+0000, and a lone surrogate (a model's escape "\ud800", which
 * JSON.parse accepts; the call's record would fail with "invalid input syntax for type json").
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unstorableIn(text: string): string | undefined {
  const found = UNSTORABLE.exec(text)?.[0];
  if (found === undefined) return undefined;
  const code = `U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return found === '\u0000' ? `a NUL character (${code})` : `a lone surrogate (${code})`;
}

/** The path of the first string (value or key) holding what PostgreSQL cannot store, and what it holds. */
function unstorablePath(value: unknown, path: string): { path: string; what: string } | undefined {
  if (typeof value === 'string') {
    const what = unstorableIn(value);
    return what ? { path, what } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const where = path === '' ? key : `${path}.${key}`;
      const what = unstorableIn(key);
      if (what) return { path: where, what };
      const found = unstorablePath(item, where);
      if (found) return found;
    }
  }
  return undefined;
}
/** A tool statement cancelled by the episode role's statement_timeout ran away on this request: an error result too. */
const isStatementTimeout = (err: unknown) => (err as { code?: unknown }).code === '57014';

function describeZodError(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('; ');
}

/**
 * Runs one episode's tool calls, one at a time (calls are serialised, so ids and indexes are deterministic). Each
 * call runs in one transaction that also records the call under its index; a rejected call rolls back its writes to
 * a savepoint but is still recorded, so a resumed episode finds every answered call and never runs one twice.
 */
export class EpisodeToolExecutor {
  private queue: Promise<unknown> = Promise.resolve();
  private nextIndex?: number;
  readonly tools: Map<string, ToolDefinition>;

  constructor(
    readonly backend: EnvironmentBackend,
    readonly episode: Episode,
    toolNames: string[] = episode.domain.profileTools[episode.task.profile],
  ) {
    const byName = new Map(episode.domain.tools.map((t) => [t.name, t]));
    this.tools = new Map(
      toolNames.map((name) => [name, byName.get(name)!]).filter(([, t]) => t) as [string, ToolDefinition][],
    );
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The index the next new call gets (recorded calls count from 0). */
  async nextCallIndex(): Promise<number> {
    if (this.nextIndex === undefined) {
      const res = await this.episode.pool
        .query<{ next: number }>('SELECT coalesce(max(call_index) + 1, 0)::int AS next FROM _finalstate_tool_calls')
        .catch((err) => {
          throw asInfrastructureError(err, 'read tool-call records');
        });
      this.nextIndex = res.rows[0]!.next;
    }
    return this.nextIndex;
  }

  async lookup(callIndex: number): Promise<RecordedToolCall | undefined> {
    const res = await this.episode.pool
      .query(
        'SELECT call_index, tool, arguments, result, is_error, message FROM _finalstate_tool_calls WHERE call_index = $1',
        [callIndex],
      )
      .catch((err) => {
        throw asInfrastructureError(err, 'read tool-call record');
      });
    const row = res.rows[0];
    if (!row) return undefined;
    return {
      callIndex: row.call_index,
      tool: row.tool,
      arguments: row.arguments,
      isError: row.is_error,
      result: row.result,
      message: row.message,
    };
  }

  async recorded(): Promise<RecordedToolCall[]> {
    const out: RecordedToolCall[] = [];
    const next = await this.nextCallIndex();
    for (let i = 0; i < next; i++) {
      const call = await this.lookup(i);
      if (call) out.push(call);
    }
    return out;
  }

  /**
   * Run a call. With `callIndex` below the next index, the recorded outcome is returned and nothing runs (resume);
   * the recorded call must be the same tool with the same arguments.
   */
  call(
    toolName: string,
    rawArgs: unknown,
    options: { callIndex?: number; budgetMs?: number } = {},
  ): Promise<ToolOutcome> {
    return this.serial(async () => {
      // before anything walks them (the record's comparison too): arguments of any depth cost a loop here
      const excess = exceedsJsonBounds(rawArgs ?? {}, TOOL_ARGUMENT_BOUNDS);
      if (excess)
        return {
          isError: true,
          message: `invalid arguments for ${toolName.slice(0, 128)}: ${describeJsonExcess(excess, TOOL_ARGUMENT_BOUNDS)}`,
        };
      const next = await this.nextCallIndex();
      if (options.callIndex !== undefined && options.callIndex !== next) {
        if (options.callIndex > next)
          throw new ToolCallIndexConflict(`tool call index ${options.callIndex} skips ahead of the next index ${next}`);
        const recorded = await this.lookup(options.callIndex);
        if (
          !recorded ||
          recorded.tool !== toolName ||
          canonicalJson(recorded.arguments) !== canonicalJson(rawArgs ?? {})
        ) {
          throw new ToolCallIndexConflict(
            `tool call ${options.callIndex} was recorded as a different call (${recorded?.tool ?? 'none'})`,
          );
        }
        return recorded.isError
          ? { callIndex: recorded.callIndex, isError: true, message: recorded.message ?? '' }
          : { callIndex: recorded.callIndex, isError: false, result: recorded.result };
      }
      const tool = this.tools.get(toolName);
      if (!tool)
        return {
          isError: true,
          message: `unknown tool ${JSON.stringify(toolName)}; available: ${[...this.tools.keys()].join(', ')}`,
        };
      const parsed = z
        .object(tool.input)
        .strict()
        .safeParse(rawArgs ?? {});
      if (!parsed.success)
        return { isError: true, message: `invalid arguments for ${toolName}: ${describeZodError(parsed.error)}` };
      const unstorable = unstorablePath(rawArgs ?? {}, '');
      if (unstorable !== undefined)
        return {
          isError: true,
          message: `invalid arguments for ${toolName}: ${unstorable.path}: contains ${unstorable.what}, which cannot be stored; remove it`,
        };
      const outcome = await this.runRecorded(
        next,
        tool,
        parsed.data,
        (rawArgs ?? {}) as Record<string, unknown>,
        options.budgetMs,
      );
      this.nextIndex = next + 1;
      return outcome;
    });
  }

  /**
   * The call in one transaction, under a ToolCallWatch: its handler ends at `postgres.episodeBounds.toolCallTimeoutMs`
   * or at `budgetMs`, whichever is sooner, and a statement the server leaves unanswered past its statement timeout
   * ends it as a stuck connection. An ended call's session is terminated, so its transaction rolls back and frees its
   * locks at once, and the episode's calls go on without it.
   */
  private async runRecorded(
    index: number,
    tool: ToolDefinition,
    args: Record<string, unknown>,
    rawArgs: Record<string, unknown>,
    budgetMs?: number,
  ): Promise<ToolOutcome> {
    const { toolCallTimeoutMs, statementTimeoutMs } = this.backend.config.postgres.episodeBounds;
    const budgeted = budgetMs !== undefined && budgetMs < toolCallTimeoutMs;
    const watch = new ToolCallWatch({
      deadline: performance.now() + (budgeted ? budgetMs : toolCallTimeoutMs),
      deadlineReason: budgeted ? 'budget' : 'tool',
      statementTimeoutMs,
    });
    const session = await this.backend.connect(this.episode);
    const client = watch.track(session);
    let broken = false;
    try {
      await watch.run(client.query('BEGIN; SAVEPOINT tool_call'), 'settle');
      let outcome: ToolOutcome;
      try {
        const context = this.context(client);
        const result = await watch.run(
          Promise.resolve().then(() => tool.handler(context, args)),
          'handler',
        );
        outcome = {
          callIndex: index,
          isError: false,
          result: result === undefined ? null : JSON.parse(JSON.stringify(result)),
        };
      } catch (err) {
        if (!isToolRejection(err) && !isValueRefusal(err) && !isStatementTimeout(err)) throw err;
        await watch.run(client.query('ROLLBACK TO SAVEPOINT tool_call'), 'settle');
        const text = isStatementTimeout(err)
          ? `${tool.name} took too long: ${(err as Error).message} (postgres.episodeBounds.statementTimeoutMs)`
          : (err as Error).message;
        outcome = { callIndex: index, isError: true, message: text };
      }
      await watch.run(
        client.query('SELECT public._finalstate_record_call($1, $2, $3, $4, $5, $6, $7)', [
          this.episode.leaseToken,
          index,
          tool.name,
          JSON.stringify(rawArgs),
          outcome.isError ? null : JSON.stringify(outcome.result),
          outcome.isError,
          outcome.isError ? outcome.message : null,
        ]),
        'settle',
      );
      await watch.run(client.query('COMMIT'), 'settle');
      return outcome;
    } catch (err) {
      if (err instanceof ToolCallCut) {
        broken = true;
        await this.terminate(session);
        throw this.cutError(err, tool.name);
      }
      await watch.run(client.query('ROLLBACK'), 'settle').catch(() => {
        broken = true;
      });
      if (isInfrastructureFault(err)) {
        broken = true;
        throw asInfrastructureError(err, `tool ${tool.name} on ${this.episode.database}`);
      }
      throw new ToolFault(`tool ${tool.name} failed (nothing was kept): ${(err as Error).message}`, { cause: err });
    } finally {
      session.release(broken);
    }
  }

  /**
   * End an abandoned call's session on the server (the role may signal its own sessions), so its transaction rolls
   * back and its locks go now rather than when its statement ends. Best effort, and bounded: a stuck server is the
   * error being reported already.
   */
  private async terminate(session: pg.PoolClient): Promise<void> {
    const pid = (session as unknown as { processID?: number }).processID;
    if (pid === undefined) return;
    const terminated = this.episode.pool.query('SELECT pg_terminate_backend($1)', [pid]).catch(() => undefined);
    await Promise.race([terminated, new Promise((resolve) => setTimeout(resolve, 2_000))]);
  }

  private cutError(cut: ToolCallCut, tool: string): Error {
    const { toolCallTimeoutMs } = this.backend.config.postgres.episodeBounds;
    switch (cut.reason) {
      case 'stuck':
        return new InfrastructureError(
          `postgres: tool ${tool} on ${this.episode.database}: ${cut.message}; the call was abandoned and its session terminated (unless it had committed, nothing was kept; the call records tell a retry which)`,
          'postgres',
        );
      case 'budget':
        return new ToolCallPastBudget(`tool ${tool} was stopped when the episode's time ran out (nothing was kept)`);
      case 'tool':
        return new ToolFault(
          `tool ${tool} did not finish within ${toolCallTimeoutMs} ms (postgres.episodeBounds.toolCallTimeoutMs), so it was stopped (nothing was kept)`,
        );
    }
  }

  private context(client: pg.ClientBase): ToolContext {
    const token = this.episode.leaseToken;
    return {
      db: client,
      now: new Date(this.episode.clock),
      async nextId(sequence: string): Promise<string> {
        const res = await client.query<{ prefix: string; value: string }>(
          'SELECT prefix, value FROM public._finalstate_next_id($1, $2)',
          [token, sequence],
        );
        const row = res.rows[0];
        if (!row)
          throw new Error(`unknown id sequence ${JSON.stringify(sequence)} (declare it in the domain's sequences)`);
        return `${row.prefix}${row.value}`;
      },
    };
  }
}

import type pg from 'pg';
import { z } from 'zod';
import { canonicalJson } from './canonical.js';
import type { EnvironmentBackend, Episode } from './backend.js';
import { isToolRejection, type ToolContext, type ToolDefinition } from './domain.js';
import { asInfrastructureError, isInfrastructureFault } from './pg-faults.js';

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
  call(toolName: string, rawArgs: unknown, options: { callIndex?: number } = {}): Promise<ToolOutcome> {
    return this.serial(async () => {
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
      const outcome = await this.runRecorded(next, tool, parsed.data, (rawArgs ?? {}) as Record<string, unknown>);
      this.nextIndex = next + 1;
      return outcome;
    });
  }

  private async runRecorded(
    index: number,
    tool: ToolDefinition,
    args: Record<string, unknown>,
    rawArgs: Record<string, unknown>,
  ): Promise<ToolOutcome> {
    const client = await this.backend.connect(this.episode);
    let broken = false;
    try {
      await client.query('BEGIN; SAVEPOINT tool_call');
      let outcome: ToolOutcome;
      try {
        const result = await tool.handler(this.context(client), args);
        outcome = {
          callIndex: index,
          isError: false,
          result: result === undefined ? null : JSON.parse(JSON.stringify(result)),
        };
      } catch (err) {
        if (!isToolRejection(err) && !isValueRefusal(err) && !isStatementTimeout(err)) throw err;
        await client.query('ROLLBACK TO SAVEPOINT tool_call');
        const text = isStatementTimeout(err)
          ? `${tool.name} took too long: ${(err as Error).message} (postgres.episodeBounds.statementTimeoutMs)`
          : (err as Error).message;
        outcome = { callIndex: index, isError: true, message: text };
      }
      await client.query('SELECT public._finalstate_record_call($1, $2, $3, $4, $5, $6, $7)', [
        this.episode.leaseToken,
        index,
        tool.name,
        JSON.stringify(rawArgs),
        outcome.isError ? null : JSON.stringify(outcome.result),
        outcome.isError,
        outcome.isError ? outcome.message : null,
      ]);
      await client.query('COMMIT');
      return outcome;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      if (isInfrastructureFault(err)) {
        broken = true;
        throw asInfrastructureError(err, `tool ${tool.name} on ${this.episode.database}`);
      }
      throw new ToolFault(`tool ${tool.name} failed (nothing was kept): ${(err as Error).message}`, { cause: err });
    } finally {
      client.release(broken);
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

import type pg from 'pg';
import { z } from 'zod';
import { canonicalJson } from './canonical.js';
import type { EnvironmentBackend, Episode } from './backend.js';
import { isToolRejection, type ToolContext, type ToolDefinition } from './domain.js';
import { asInfrastructureError, isInfrastructureFault } from './pg-faults.js';

/** What the agent sees of one tool call. */
export type ToolOutcome =
  | { callIndex: number; isError: false; result: unknown }
  | { callIndex: number; isError: true; message: string };

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

/** Data and constraint violations (SQLSTATE 22xxx, 23xxx) raised while a tool writes are refusals of the request. */
const isConstraintViolation = (err: unknown) => /^(22|23)/.test(String((err as { code?: unknown }).code ?? ''));

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
    this.tools = new Map(toolNames.map((name) => [name, byName.get(name)!]).filter(([, t]) => t) as [string, ToolDefinition][]);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The index the next new call gets (recorded calls count from 0). */
  async nextCallIndex(): Promise<number> {
    if (this.nextIndex === undefined) {
      const res = await this.episode.pool.query<{ next: number }>('SELECT coalesce(max(call_index) + 1, 0)::int AS next FROM _finalstate_tool_calls').catch((err) => {
        throw asInfrastructureError(err, 'read tool-call records');
      });
      this.nextIndex = res.rows[0]!.next;
    }
    return this.nextIndex;
  }

  async lookup(callIndex: number): Promise<RecordedToolCall | undefined> {
    const res = await this.episode.pool
      .query('SELECT call_index, tool, arguments, result, is_error, message FROM _finalstate_tool_calls WHERE call_index = $1', [callIndex])
      .catch((err) => {
        throw asInfrastructureError(err, 'read tool-call record');
      });
    const row = res.rows[0];
    if (!row) return undefined;
    return { callIndex: row.call_index, tool: row.tool, arguments: row.arguments, isError: row.is_error, result: row.result, message: row.message };
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
        if (options.callIndex > next) throw new Error(`tool call index ${options.callIndex} skips ahead of the next index ${next}`);
        const recorded = await this.lookup(options.callIndex);
        if (!recorded || recorded.tool !== toolName || canonicalJson(recorded.arguments) !== canonicalJson(rawArgs ?? {})) {
          throw new Error(`tool call ${options.callIndex} was recorded as a different call (${recorded?.tool ?? 'none'})`);
        }
        return recorded.isError
          ? { callIndex: recorded.callIndex, isError: true, message: recorded.message ?? '' }
          : { callIndex: recorded.callIndex, isError: false, result: recorded.result };
      }
      const tool = this.tools.get(toolName);
      if (!tool) return { callIndex: next, isError: true, message: `unknown tool ${JSON.stringify(toolName)}; available: ${[...this.tools.keys()].join(', ')}` };
      const parsed = z.object(tool.input).strict().safeParse(rawArgs ?? {});
      if (!parsed.success) return { callIndex: next, isError: true, message: `invalid arguments for ${toolName}: ${describeZodError(parsed.error)}` };
      const outcome = await this.runRecorded(next, tool, parsed.data, (rawArgs ?? {}) as Record<string, unknown>);
      this.nextIndex = next + 1;
      return outcome;
    });
  }

  private async runRecorded(index: number, tool: ToolDefinition, args: Record<string, unknown>, rawArgs: Record<string, unknown>): Promise<ToolOutcome> {
    const client = await this.backend.connect(this.episode);
    let broken = false;
    try {
      await client.query('BEGIN');
      await client.query('SAVEPOINT tool_call');
      let outcome: ToolOutcome;
      try {
        const result = await tool.handler(this.context(client), args);
        outcome = { callIndex: index, isError: false, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) };
      } catch (err) {
        if (!isToolRejection(err) && !isConstraintViolation(err)) throw err;
        await client.query('ROLLBACK TO SAVEPOINT tool_call');
        outcome = { callIndex: index, isError: true, message: (err as Error).message };
      }
      await client.query(
        'INSERT INTO _finalstate_tool_calls (call_index, tool, arguments, result, is_error, message) VALUES ($1, $2, $3, $4, $5, $6)',
        [index, tool.name, JSON.stringify(rawArgs), outcome.isError ? null : JSON.stringify(outcome.result), outcome.isError, outcome.isError ? outcome.message : null],
      );
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
    return {
      db: client,
      now: new Date(this.episode.clock),
      async nextId(sequence: string): Promise<string> {
        const res = await client.query<{ prefix: string; value: string }>(
          'UPDATE _finalstate_sequences SET next_value = next_value + 1 WHERE name = $1 RETURNING prefix, (next_value - 1)::text AS value',
          [sequence],
        );
        const row = res.rows[0];
        if (!row) throw new Error(`unknown id sequence ${JSON.stringify(sequence)} (declare it in the domain's sequences)`);
        return `${row.prefix}${row.value}`;
      },
    };
  }
}

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { z } from 'zod';
import { InfrastructureError } from '../../core/errors.js';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { connectionConfig } from '../../environment/connection.js';
import { EnvironmentBackend, type Episode } from '../../environment/backend.js';
import type { DomainDefinition, ToolContext, ToolDefinition } from '../../environment/domain.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import { DomainRegistry } from '../../environment/registry.js';
import { EpisodeToolExecutor } from '../../environment/tool-executor.js';
import { NO_USAGE, type UserSimulator } from '../../runtime/clients/user-simulator.js';
import { runAgentLoop } from '../../runtime/episode/loop.js';
import { McpToolSession } from '../../runtime/episode/mcp-tool-session.js';
import { EpisodeLimits } from '../../schemas/episode.js';
import { fixtureHelpdeskDomain } from '../fixtures/fixture-helpdesk-domain.js';
import { ScriptedCallsPolicy } from '../runtime/scripted-policies.js';
import { fixtureTask, uniqueEpisodeId } from './harness.js';

// Finding 4 of issue 25: a tool that never settles. Its handler, its SQL and its session run under the episode's
// clock and a timeout of their own; whichever way it hangs, the call ends, its transaction rolls back, the episode's
// calls go on (or the episode ends on its clock), and a hang that is the infrastructure's (a lock held by another
// session, a frozen server process) is an InfrastructureError, never a tool error shown to the agent. Real
// PostgreSQL, the fixture pack plus three test-only tools that hang in each of those ways.

/** PIDs of backends a frozen tool stopped, to be continued after the test whatever happens. */
const frozen: number[] = [];

const testTools: ToolDefinition[] = [
  {
    name: 'fixture_hanging_cancel',
    description: 'TEST FIXTURE: cancels the order, then waits for something that never comes (a handler bug).',
    input: { order_id: z.string() },
    readOnly: false,
    handler: async (ctx: ToolContext, args: { order_id: string }) => {
      await ctx.db.query("UPDATE orders SET status = 'cancelled' WHERE order_id = $1", [args.order_id]);
      await new Promise(() => undefined);
    },
  },
  {
    name: 'fixture_frozen_lookup',
    description: 'TEST FIXTURE: stops its own PostgreSQL backend (SIGSTOP), then reads: a server process that froze.',
    input: { order_id: z.string() },
    readOnly: true,
    handler: async (ctx: ToolContext, args: { order_id: string }) => {
      const pid = (await ctx.db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      process.kill(pid, 'SIGSTOP');
      frozen.push(pid);
      return (await ctx.db.query('SELECT * FROM orders WHERE order_id = $1', [args.order_id])).rows[0];
    },
  },
  {
    name: 'fixture_echo_note',
    description: 'TEST FIXTURE: takes a free-form note object and answers it back (a schema that allows any depth).',
    input: { note: z.record(z.string(), z.unknown()) },
    readOnly: true,
    handler: async (_ctx: ToolContext, args: { note: Record<string, unknown> }) => args.note,
  },
] as unknown as ToolDefinition[];

const testDomain: DomainDefinition = {
  ...fixtureHelpdeskDomain,
  tools: [...fixtureHelpdeskDomain.tools, ...testTools],
  profileTools: {
    ...fixtureHelpdeskDomain.profileTools,
    full: [...fixtureHelpdeskDomain.profileTools.full, ...testTools.map((t) => t.name)],
  },
};

function boundedConfig(bounds: Partial<LoadedConfig['postgres']['episodeBounds']>): LoadedConfig {
  const config = loadConfig();
  return {
    ...config,
    postgres: { ...config.postgres, episodeBounds: { ...config.postgres.episodeBounds, ...bounds } },
  };
}

/** Guards the test run against today's hang: the promise, or a rejection after `ms` (never a timing assertion). */
function settlesWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} had not settled after ${ms} ms`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

const statusOf = async (episode: Episode, order: string) =>
  (await episode.pool.query<{ status: string }>('SELECT status FROM orders WHERE order_id = $1', [order])).rows[0]!
    .status;

/** Through the admin pool: the template revokes pg_stat_activity from episode roles. */
const sessionAlive = async (admin: pg.Pool, pid: number) =>
  (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 1;

describe('tool calls under their bounds, on the real PostgreSQL', () => {
  const config = boundedConfig({ statementTimeoutMs: 1_000, lockTimeoutMs: 500, toolCallTimeoutMs: 2_000 });
  const backend = new EnvironmentBackend(config, new DomainRegistry([testDomain]), { sparesPerTemplate: 0 });
  after(async () => {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    await backend.close();
  });

  it('a handler hung in its own code is stopped at toolCallTimeoutMs: the agent is told, its write rolled back, its session ended, the next call runs', async () => {
    const episode = await backend.provision(uniqueEpisodeId('hung-handler'), fixtureTask('cancel-O-1'));
    const wiring = await connectEpisodeTools(backend, episode);
    try {
      const before = new Set(
        (
          await backend.admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE usename = $1', [
            episode.role,
          ])
        ).rows.map((r) => r.pid),
      );
      const hung = await settlesWithin(
        wiring.client.callTool('fixture_hanging_cancel', { order_id: 'O-1' }, { callIndex: 0 }),
        15_000,
        'the hung tool call',
      );
      assert.equal(hung.isError, true);
      assert.match(hung.content, /did not finish within 2000 ms \(postgres\.episodeBounds\.toolCallTimeoutMs\)/);
      assert.ok(hung.fault, "flagged as the tool's fault, which `tasks verify` reports");
      assert.equal(hung.callIndex, undefined, 'a call that kept nothing consumes no index');
      assert.equal(await statusOf(episode, 'O-1'), 'placed', 'its write was rolled back');
      const left = (
        await backend.admin.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE usename = $1 AND state LIKE 'idle in transaction%'",
          [episode.role],
        )
      ).rows.filter((r) => !before.has(r.pid));
      assert.deepEqual(left, [], 'no session of the abandoned call is left in its transaction');
      const next = await wiring.client.callTool(
        'cancel_order',
        { order_id: 'O-1', reason: 'customer_request' },
        { callIndex: 0 },
      );
      assert.deepEqual([next.callIndex, next.isError], [0, false], 'the next call runs, under index 0');
    } finally {
      await wiring.close();
      await backend.teardown(episode, { wait: true });
    }
  });

  it("the episode's clock stops a tool still running: finish reason timeout, nothing kept", async () => {
    const episode = await backend.provision(uniqueEpisodeId('clock-cut'), fixtureTask('cancel-O-1'));
    try {
      const wiring = await connectEpisodeTools(backend, episode);
      const tools = new McpToolSession(wiring.client, () => wiring.close());
      const user: UserSimulator = {
        opening: () => ({ text: 'Cancel O-1, please.', done: false, usage: NO_USAGE, model: null }),
        reply: async () => ({ text: 'Thanks.', done: true, usage: NO_USAGE, model: null }),
      };
      let loop;
      try {
        loop = await settlesWithin(
          runAgentLoop({
            system: 'test',
            policy: new ScriptedCallsPolicy([{ tool: 'fixture_hanging_cancel', arguments: { order_id: 'O-1' } }]),
            tools,
            user,
            limits: EpisodeLimits.parse({ timeoutMs: 500 }),
          }),
          15_000,
          'the episode',
        );
      } finally {
        await tools.close();
      }
      assert.equal(loop.finishReason, 'timeout');
      assert.equal(loop.agentTurns.length, 1);
      assert.deepEqual(
        loop.conversation.turns.filter((t) => t.role === 'tool'),
        [],
        'the stopped call has no answer',
      );
      assert.deepEqual(await wiring.executor.recorded(), [], 'nothing was recorded');
      assert.equal(await statusOf(episode, 'O-1'), 'placed', 'nothing was kept');
    } finally {
      await backend.teardown(episode, { wait: true });
    }
  });

  it('a lock another session holds on the row: the wait ends at lockTimeoutMs as an InfrastructureError, and once the lock is gone the call runs', async () => {
    const episode = await backend.provision(uniqueEpisodeId('lock-wait'), fixtureTask('cancel-O-1'));
    const holder = new pg.Client({ ...connectionConfig(config, episode.database) });
    holder.on('error', () => undefined);
    try {
      await holder.connect();
      await holder.query("BEGIN; SELECT * FROM orders WHERE order_id = 'O-1' FOR UPDATE");
      const executor = new EpisodeToolExecutor(backend, episode);
      const blocked = await settlesWithin(
        executor.call('cancel_order', { order_id: 'O-1', reason: 'customer_request' }).catch((err: Error) => err),
        15_000,
        'the blocked call',
      );
      assert.ok(blocked instanceof InfrastructureError, `an InfrastructureError, got ${JSON.stringify(blocked)}`);
      assert.equal(blocked.component, 'postgres');
      assert.match(blocked.message, /lock timeout/);
      await holder.query('ROLLBACK');
      const retried = await executor.call('cancel_order', { order_id: 'O-1', reason: 'customer_request' });
      assert.deepEqual([retried.callIndex, retried.isError], [0, false], 'the retried call gets index 0 and runs');
      assert.equal(await statusOf(episode, 'O-1'), 'cancelled');
    } finally {
      await holder.end().catch(() => undefined);
      await backend.teardown(episode, { wait: true });
    }
  });

  it('arguments an MCP client nests 20,000 deep are refused before anything walks them, with no index', async () => {
    const episode = await backend.provision(uniqueEpisodeId('deep-args'), fixtureTask('cancel-O-1'));
    const wiring = await connectEpisodeTools(backend, episode);
    try {
      let note: Record<string, unknown> = {};
      for (let i = 0; i < 20_000; i++) note = { a: note };
      const refused = await wiring.client.callTool('fixture_echo_note', { note }, { callIndex: 0 });
      assert.equal(refused.isError, true);
      assert.match(refused.content, /nested deeper than 32 levels/);
      assert.equal(refused.callIndex, undefined);
      const fine = await wiring.client.callTool('fixture_echo_note', { note: { a: { b: 1 } } }, { callIndex: 0 });
      assert.deepEqual([fine.callIndex, fine.structured], [0, { a: { b: 1 } }]);
    } finally {
      await wiring.close();
      await backend.teardown(episode, { wait: true });
    }
  });

  it('a server process frozen mid-call (SIGSTOP): an InfrastructureError once its statement is unanswered past the statement timeout; its session is ended', async (t) => {
    const episode = await backend.provision(uniqueEpisodeId('frozen'), fixtureTask('cancel-O-1'));
    try {
      const probe = (await episode.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      try {
        process.kill(probe, 0);
      } catch {
        t.skip('the PostgreSQL server is not a local process this test may signal');
        return;
      }
      const executor = new EpisodeToolExecutor(backend, episode);
      let stuck: unknown;
      try {
        stuck = await settlesWithin(
          executor.call('fixture_frozen_lookup', { order_id: 'O-1' }).catch((err: Error) => err),
          30_000,
          'the call on a frozen server process',
        );
      } finally {
        process.kill(frozen.at(-1)!, 'SIGCONT');
      }
      assert.ok(stuck instanceof InfrastructureError, `an InfrastructureError, got ${JSON.stringify(stuck)}`);
      assert.match(
        stuck.message,
        /no answer for \d+ ms, past the statement timeout \(1000 ms\).*stuck connection or server/,
      );
      const pid = frozen.at(-1)!;
      // the termination sent while it was stopped takes effect as soon as it runs again
      for (let i = 0; i < 50 && (await sessionAlive(backend.admin, pid)); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.equal(await sessionAlive(backend.admin, pid), false, 'the frozen session was terminated');
      const next = await executor.call('get_order', { order_id: 'O-1' });
      assert.deepEqual([next.callIndex, next.isError], [0, false]);
    } finally {
      await backend.teardown(episode, { wait: true });
    }
  });
});

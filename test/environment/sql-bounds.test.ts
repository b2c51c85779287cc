import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { z } from 'zod';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { connectionConfig } from '../../environment/connection.js';
import { EnvironmentBackend } from '../../environment/backend.js';
import type { DomainDefinition, ToolContext, ToolDefinition } from '../../environment/domain.js';
import { DomainRegistry } from '../../environment/registry.js';
import { EpisodeToolExecutor } from '../../environment/tool-executor.js';
import { fixtureHelpdeskDomain } from '../fixtures/fixture-helpdesk-domain.js';
import { fixtureTask, uniqueEpisodeId } from './harness.js';

/** The fixture pack plus one tool whose SQL runs away: it sleeps for as long as it is asked. */
const slowTool: ToolDefinition = {
  name: 'fixture_slow_report',
  description: 'A report whose query takes `seconds` seconds.',
  input: { seconds: z.number() },
  readOnly: true,
  handler: async (ctx: ToolContext, args: { seconds: number }) =>
    (await ctx.db.query('SELECT pg_sleep($1) IS NULL AS done', [args.seconds])).rows[0],
} as unknown as ToolDefinition;
const slowDomain: DomainDefinition = {
  ...fixtureHelpdeskDomain,
  tools: [...fixtureHelpdeskDomain.tools, slowTool],
  profileTools: {
    ...fixtureHelpdeskDomain.profileTools,
    full: [...fixtureHelpdeskDomain.profileTools.full, slowTool.name],
  },
};

function boundedConfig(bounds: Partial<LoadedConfig['postgres']['episodeBounds']>): LoadedConfig {
  const config = loadConfig();
  return {
    ...config,
    postgres: { ...config.postgres, episodeBounds: { ...config.postgres.episodeBounds, ...bounds } },
  };
}

describe('SQL bounds of an episode role on the real PostgreSQL', () => {
  const config = boundedConfig({ statementTimeoutMs: 300, idleInTransactionTimeoutMs: 400, connectionLimit: 3 });
  const backend = new EnvironmentBackend(config, new DomainRegistry([slowDomain]), { sparesPerTemplate: 0 });
  after(() => backend.close());

  it('cancels a runaway tool query after statementTimeoutMs; the call is an error result and the episode goes on', async () => {
    const episode = await backend.provision(uniqueEpisodeId('timeout'), fixtureTask('cancel-O-1'));
    try {
      const executor = new EpisodeToolExecutor(backend, episode);
      const started = Date.now();
      const slow = await executor.call('fixture_slow_report', { seconds: 5 });
      assert.ok(Date.now() - started < 3000, `cancelled well before the 5 s sleep ended (${Date.now() - started} ms)`);
      assert.equal(slow.isError, true);
      assert.match(slow.isError ? slow.message : '', /statement timeout.*statementTimeoutMs/);
      const next = await executor.call('cancel_order', { order_id: 'O-1', reason: 'customer_request' });
      assert.deepEqual([next.callIndex, next.isError], [1, false], 'the next call runs under the next index');
    } finally {
      await backend.teardown(episode, { wait: true });
    }
  });

  it('closes a session left idle inside a transaction for longer than idleInTransactionTimeoutMs', async () => {
    const episode = await backend.provision(uniqueEpisodeId('idle'), fixtureTask('cancel-O-1'));
    try {
      const client = await backend.connect(episode);
      try {
        await client.query('BEGIN');
        await client.query("UPDATE orders SET status = 'shipped' WHERE order_id = 'O-1'");
        await new Promise((resolve) => setTimeout(resolve, 1200));
        await assert.rejects(client.query('COMMIT'), /terminat|idle-in-transaction|Connection/i);
      } finally {
        client.release(true);
      }
      const status = await episode.pool.query("SELECT status FROM orders WHERE order_id = 'O-1'");
      assert.equal(status.rows[0].status, 'placed', 'the abandoned transaction was rolled back');
    } finally {
      await backend.teardown(episode, { wait: true });
    }
  });

  it('refuses the episode role more sessions than connectionLimit', async () => {
    const episode = await backend.provision(uniqueEpisodeId('limit'), fixtureTask('cancel-O-1'));
    const { user, password } = (episode.pool as unknown as { options: { user: string; password: string } }).options;
    const clients: pg.Client[] = [];
    try {
      const open = async () => {
        const client = new pg.Client({ ...connectionConfig(config, episode.database), user, password });
        client.on('error', () => undefined);
        clients.push(client);
        await client.connect();
      };
      // the runtime's own pool still holds the session provisioning used
      for (let i = episode.pool.totalCount; i < 3; i++) await open();
      await assert.rejects(open(), /too many connections for role/);
    } finally {
      for (const c of clients) await c.end().catch(() => undefined);
      await backend.teardown(episode, { wait: true });
    }
  });

  it('rejects a connection limit below the episode pool size, naming the key', () => {
    assert.throws(
      () =>
        new EnvironmentBackend(boundedConfig({ connectionLimit: 1 }), new DomainRegistry([slowDomain]), {
          episodeConnections: 2,
        }),
      /postgres\.episodeBounds\.connectionLimit \(1\) is below the episode pool size \(2\)/,
    );
  });
});

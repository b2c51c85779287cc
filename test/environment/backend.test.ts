import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { withClient } from '../../infra/stack/postgres.js';
import { connectionConfig } from '../../environment/connection.js';
import { EpisodeToolExecutor } from '../../environment/tool-executor.js';
import { isInfrastructureFault } from '../../environment/pg-faults.js';
import { fixtureEnvironment, fixtureTask, uniqueEpisodeId } from './harness.js';

describe('episode backends on the real PostgreSQL', () => {
  const env = fixtureEnvironment();
  after(() => env.close());

  it('provisions a database named from the episode id (under the stack key), with seed and init applied, and tears it down', async () => {
    const task = fixtureTask('new-customer-email');
    const id = uniqueEpisodeId('provision');
    const episode = await env.backend.provision(id, task);
    assert.equal(episode.database, env.backend.names(id).database);
    const customers = await episode.pool.query('SELECT customer_id FROM customers ORDER BY customer_id');
    assert.deepEqual(
      customers.rows.map((r) => r.customer_id),
      ['C-1', 'C-2', 'C-9'],
    );
    const orders = await episode.pool.query("SELECT 1 FROM orders WHERE order_id = 'O-3'");
    assert.equal(orders.rowCount, 0, 'init.delete removed O-3');
    await env.backend.teardown(episode, { wait: true });
    await withClient(env.config, undefined, async (c) => {
      const left = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [episode.database]);
      assert.equal(left.rowCount, 0);
      const role = await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [episode.role]);
      assert.equal(role.rowCount, 0);
    });
  });

  it('isolates two episodes: a write in one is invisible in the other', async () => {
    const task = fixtureTask('cancel-O-1');
    const a = await env.backend.provision(uniqueEpisodeId('iso-a'), task);
    const b = await env.backend.provision(uniqueEpisodeId('iso-b'), task);
    try {
      const outcome = await new EpisodeToolExecutor(env.backend, a).call('cancel_order', {
        order_id: 'O-1',
        reason: 'customer_request',
      });
      assert.equal(outcome.isError, false);
      const inA = await a.pool.query("SELECT status FROM orders WHERE order_id = 'O-1'");
      const inB = await b.pool.query("SELECT status FROM orders WHERE order_id = 'O-1'");
      assert.equal(inA.rows[0].status, 'cancelled');
      assert.equal(inB.rows[0].status, 'placed');
    } finally {
      await env.backend.teardown(a);
      await env.backend.teardown(b);
    }
  });

  it("an episode's role can connect only to its own database", async () => {
    const task = fixtureTask('cancel-O-1');
    const a = await env.backend.provision(uniqueEpisodeId('role-a'), task);
    const b = await env.backend.provision(uniqueEpisodeId('role-b'), task);
    try {
      const own = await a.pool.query('SELECT current_user, current_database()');
      assert.equal(own.rows[0].current_user, a.role);
      const password = (a.pool as unknown as { options: { password: string } }).options.password;
      for (const other of [b.database, env.config.postgres.database, 'postgres']) {
        const client = new pg.Client({ ...connectionConfig(env.config, other), user: a.role, password });
        await assert.rejects(
          client.connect(),
          /permission denied for database/,
          `role ${a.role} must not reach ${other}`,
        );
        await client.end().catch(() => undefined);
      }
    } finally {
      await env.backend.teardown(a);
      await env.backend.teardown(b);
    }
  });

  it('reattaches to an episode database by episode id, keeping its state, and refuses a different task', async () => {
    const task = fixtureTask('cancel-O-1');
    const id = uniqueEpisodeId('reattach');
    const first = await env.backend.open(id, task);
    assert.equal(first.reattached, false);
    await new EpisodeToolExecutor(env.backend, first).call('cancel_order', {
      order_id: 'O-1',
      reason: 'customer_request',
    });
    await env.backend.detach(first);
    const second = await env.backend.open(id, task);
    try {
      assert.equal(second.reattached, true);
      assert.equal(second.database, first.database);
      const row = await second.pool.query("SELECT status FROM orders WHERE order_id = 'O-1'");
      assert.equal(row.rows[0].status, 'cancelled');
      const executor = new EpisodeToolExecutor(env.backend, second);
      assert.equal(await executor.nextCallIndex(), 1, 'the recorded call is found after reattaching');
      const other = fixtureTask('cancel-O-3');
      await assert.rejects(env.backend.open(id, other), /different task content/);
    } finally {
      await env.backend.teardown(second);
    }
  });

  it('rebuilds a half-provisioned episode database instead of reattaching to it', async () => {
    const task = fixtureTask('cancel-O-1');
    const id = uniqueEpisodeId('half');
    const first = await env.backend.provision(id, task);
    await first.pool.query("UPDATE orders SET status = 'shipped' WHERE order_id = 'O-1'");
    // as if the attempt died before its init committed: no episode marker row (the episode role cannot delete it)
    await withClient(env.config, first.database, (c) => c.query('DELETE FROM _finalstate_episode'));
    await env.backend.detach(first);
    const second = await env.backend.open(id, task);
    try {
      assert.equal(second.reattached, false);
      const row = await second.pool.query("SELECT status FROM orders WHERE order_id = 'O-1'");
      assert.equal(row.rows[0].status, 'placed', 'a fresh copy, not the half-built one');
    } finally {
      await env.backend.teardown(second);
    }
  });

  it('an episode role that changes its own password fails its next login as an infrastructure fault; reattach restores it', async () => {
    const task = fixtureTask('cancel-O-1');
    const id = uniqueEpisodeId('own-password');
    const first = await env.backend.provision(id, task);
    await first.pool.query(`ALTER ROLE ${pg.escapeIdentifier(first.role)} PASSWORD 'mine-now'`);
    const idle = await first.pool.connect(); // the session provisioning opened still works
    const refused = await first.pool.connect().then(
      (c) => (c.release(), undefined),
      (err: unknown) => err,
    );
    idle.release();
    assert.match(String(refused), /password authentication failed/);
    assert.equal(isInfrastructureFault(refused), true, 'retried as an outage, not scored as the task failing');
    await env.backend.detach(first);
    const second = await env.backend.open(id, task);
    try {
      assert.equal(second.reattached, true);
      const outcome = await new EpisodeToolExecutor(env.backend, second).call('cancel_order', {
        order_id: 'O-1',
        reason: 'customer_request',
      });
      assert.equal(outcome.isError, false);
    } finally {
      await env.backend.teardown(second);
    }
  });

  it('rebuilds an episode database provisioned before the internal-table functions existed', async () => {
    const task = fixtureTask('cancel-O-1');
    const id = uniqueEpisodeId('pre-upgrade');
    const first = await env.backend.provision(id, task);
    await first.pool.query("UPDATE orders SET status = 'shipped' WHERE order_id = 'O-1'");
    await withClient(env.config, first.database, (c) =>
      c.query('DROP FUNCTION _finalstate_record_call(text, integer, text, jsonb, jsonb, boolean, text)'),
    );
    await env.backend.detach(first);
    const second = await env.backend.open(id, task);
    try {
      assert.equal(second.reattached, false);
      const outcome = await new EpisodeToolExecutor(env.backend, second).call('get_order', { order_id: 'O-1' });
      assert.deepEqual(
        [outcome.isError, outcome.isError ? '' : (outcome.result as { status: string }).status],
        [false, 'placed'],
      );
    } finally {
      await env.backend.teardown(second);
    }
  });

  it('refuses a task whose init names an unknown table, leaving nothing behind', async () => {
    const task = { ...fixtureTask('cancel-O-1'), init: { upsert: { nonexistent: [{ a: 1 }] }, delete: {} } };
    const id = uniqueEpisodeId('bad-init');
    await assert.rejects(env.backend.provision(id, task), /init\.upsert\.nonexistent names unknown table/);
    await withClient(env.config, undefined, async (c) => {
      const left = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [env.backend.names(id).database]);
      assert.equal(left.rowCount, 0);
    });
  });
});

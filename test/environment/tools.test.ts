import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InfrastructureError } from '../../core/errors.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import { ToolCallIndexConflict } from '../../environment/tool-executor.js';
import { fixtureEnvironment, fixtureTask, uniqueEpisodeId } from './harness.js';

describe('episode tools over an in-process MCP session', () => {
  const env = fixtureEnvironment();
  after(() => env.close());

  async function open(suffix: string, profile: 'full' | 'mini' = 'full') {
    const episode = await env.backend.provision(uniqueEpisodeId(suffix), fixtureTask(suffix, profile));
    const tools = await connectEpisodeTools(env.backend, episode);
    return {
      episode,
      tools,
      async done() {
        await tools.close();
        await env.backend.teardown(episode);
      },
    };
  }

  it("lists only the task profile's tools, with descriptions, input schemas and the policy as instructions", async () => {
    const { tools, done } = await open('cancel-O-1', 'mini');
    try {
      const listed = await tools.client.listTools();
      assert.deepEqual(listed.map((t) => t.name).sort(), ['cancel_order', 'get_order', 'open_ticket']);
      const cancel = listed.find((t) => t.name === 'cancel_order')!;
      assert.match(cancel.description, /not shipped/);
      assert.deepEqual((cancel.inputSchema.properties as Record<string, unknown>).reason, {
        type: 'string',
        enum: ['customer_request', 'fraud', 'duplicate'],
      });
      assert.equal(listed.find((t) => t.name === 'get_order')!.readOnly, true);
      assert.match(tools.client.instructions() ?? '', /Cancel only placed orders/);
    } finally {
      await done();
    }
  });

  it('returns invalid arguments, not-found and business rejections as isError results the agent sees', async () => {
    const { tools, done } = await open('cancel-O-1');
    try {
      const invalid = await tools.client.callTool('cancel_order', { order_id: 'O-1', reason: 'because' });
      assert.equal(invalid.isError, true);
      assert.match(invalid.content, /reason/);
      const notFound = await tools.client.callTool('get_order', { order_id: 'O-404' });
      assert.deepEqual([notFound.isError, notFound.content], [true, 'order O-404 not found']);
      const rejected = await tools.client.callTool('cancel_order', { order_id: 'O-2', reason: 'customer_request' });
      assert.equal(rejected.isError, true);
      assert.match(rejected.content, /shipped and cannot be cancelled/);
      const ok = await tools.client.callTool('get_order', { order_id: 'O-1' });
      assert.equal(ok.isError, false);
      assert.deepEqual(ok.structured, { order_id: 'O-1', customer_id: 'C-1', status: 'placed', total: '120.50' });
    } finally {
      await done();
    }
  });

  it('gives the same ids for the same calls in two episodes (deterministic sequences, fixed clock)', async () => {
    const runs = [];
    for (const label of ['det-a', 'det-b']) {
      const { episode, tools, done } = await open('hold-ticket');
      try {
        const first = await tools.client.callTool('open_ticket', { customer_id: 'C-1', subject: 'one' });
        const second = await tools.client.callTool('open_ticket', { customer_id: 'C-2', subject: 'two' });
        const audit = await episode.pool.query('SELECT audit_id, at FROM audit_log ORDER BY audit_id');
        runs.push({
          label,
          ids: [first.structured, second.structured],
          audit: audit.rows.map((r) => [r.audit_id, r.at.toISOString()]),
        });
      } finally {
        await done();
      }
    }
    assert.deepEqual(runs[0]!.ids, [
      { ticket_id: 'TCK-1001', status: 'open' },
      { ticket_id: 'TCK-1002', status: 'open' },
    ]);
    assert.deepEqual(runs[0]!.ids, runs[1]!.ids);
    assert.deepEqual(runs[0]!.audit, [
      ['AUD-1', '2026-03-01T10:00:00.000Z'],
      ['AUD-2', '2026-03-01T10:00:00.000Z'],
    ]);
    assert.deepEqual(runs[0]!.audit, runs[1]!.audit);
  });

  it('records each call with its result in the same transaction as its writes; a faulty tool leaves neither', async () => {
    const { episode, tools, done } = await open('cancel-O-1');
    try {
      const ok = await tools.client.callTool('cancel_order', { order_id: 'O-1', reason: 'fraud' });
      assert.equal(ok.callIndex, 0);
      const rejected = await tools.client.callTool('cancel_order', { order_id: 'O-1', reason: 'fraud' });
      assert.deepEqual([rejected.isError, rejected.callIndex], [true, 1]);
      const faulty = await tools.client.callTool('fixture_faulty_refund', { order_id: 'O-3' });
      assert.equal(faulty.isError, true);
      assert.match(faulty.content, /nothing was kept/);
      const order = await episode.pool.query("SELECT total::text FROM orders WHERE order_id = 'O-3'");
      assert.equal(order.rows[0].total, '9.99', 'the faulty tool wrote nothing');
      const audit = await episode.pool.query("SELECT count(*)::int AS n FROM audit_log WHERE action = 'refund'");
      assert.equal(audit.rows[0].n, 0);
      const records = await tools.executor.recorded();
      assert.deepEqual(
        records.map((r) => [r.callIndex, r.tool, r.isError]),
        [
          [0, 'cancel_order', false],
          [1, 'cancel_order', true],
        ],
      );
      assert.deepEqual(records[0]!.result, { order_id: 'O-1', status: 'cancelled' });
      assert.deepEqual(await tools.executor.lookup(0), records[0]);
      assert.equal(await tools.executor.lookup(2), undefined, 'the faulty call left no record');
      // the next call gets index 2: the faulty call consumed none
      const next = await tools.client.callTool('get_order', { order_id: 'O-1' });
      assert.equal(next.callIndex, 2);
    } finally {
      await done();
    }
  });

  it('answers a resumed call from its record without running it twice', async () => {
    const { episode, tools, done } = await open('hold-ticket');
    try {
      const first = await tools.client.callTool(
        'open_ticket',
        { customer_id: 'C-1', subject: 'resume me' },
        { callIndex: 0 },
      );
      const again = await tools.client.callTool(
        'open_ticket',
        { customer_id: 'C-1', subject: 'resume me' },
        { callIndex: 0 },
      );
      assert.deepEqual(again.structured, first.structured);
      const tickets = await episode.pool.query("SELECT count(*)::int AS n FROM tickets WHERE subject = 'resume me'");
      assert.equal(tickets.rows[0].n, 1, 'the replayed call did not run again');
      // a caller that lost track of the records is not the agent's mistake: the client raises it instead of a tool error
      await assert.rejects(
        tools.client.callTool('open_ticket', { customer_id: 'C-2', subject: 'other' }, { callIndex: 0 }),
        (err: unknown) => err instanceof ToolCallIndexConflict && /recorded as a different call/.test(err.message),
      );
      await assert.rejects(
        tools.client.callTool('get_order', { order_id: 'O-1' }, { callIndex: 5 }),
        /skips ahead of the next index 1/,
      );
    } finally {
      await done();
    }
  });

  it('turns a database outage into an InfrastructureError, not an agent-visible rejection', async () => {
    const { episode, tools } = await open('cancel-O-1');
    try {
      // terminate the episode's server connections, then take the database away for good
      await env.backend.admin.query('ALTER DATABASE ' + episode.database + ' WITH ALLOW_CONNECTIONS false');
      await env.backend.admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
        episode.database,
      ]);
      await assert.rejects(
        tools.client.callTool('get_order', { order_id: 'O-1' }),
        (err: unknown) => err instanceof InfrastructureError,
      );
    } finally {
      // the database is closed for good: nothing can retire it, so it is dropped by name
      await tools.close();
      await env.backend.detach(episode);
      await env.backend.dropByName(episode.database, episode.role);
    }
  });
});

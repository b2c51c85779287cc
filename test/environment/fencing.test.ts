import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InfrastructureError } from '../../core/errors.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import { EpisodeCheckpoints } from '../../runtime/episode/checkpoint.js';
import { fixtureEnvironment, fixtureTask, uniqueEpisodeId } from './harness.js';

/**
 * Two live attempts of one episode, as Temporal makes them when an attempt stalls past its heartbeat timeout: the
 * stalled attempt (the zombie) holds one handle on the episode database, its retry another. The database is fenced:
 * once the retry has opened it, the zombie writes nothing more, and its teardown leaves the database to the retry.
 */
/** By name: what StaleAttemptError (environment/pg-faults.ts) is called. */
const stale = (err: unknown) => {
  assert.ok(err instanceof InfrastructureError && err.name === 'StaleAttemptError', String(err));
  return true;
};

describe('one live attempt per episode', () => {
  const env = fixtureEnvironment();
  after(() => env.close());

  const exists = async (database: string) =>
    (await env.backend.admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1;

  it("a zombie's writes after the retry reattached are refused as infrastructure, never taking the retry's indexes", async () => {
    const task = fixtureTask('hold-ticket');
    const id = uniqueEpisodeId('zombie');
    const zombie = await env.backend.open(id, task);
    const zombieTools = await connectEpisodeTools(env.backend, zombie);
    const first = await zombieTools.client.callTool('open_ticket', { customer_id: 'C-1', subject: 'one' });
    assert.equal(first.callIndex, 0);

    const retry = await env.backend.open(id, task);
    assert.equal(retry.reattached, true);
    const retryTools = await connectEpisodeTools(env.backend, retry);
    try {
      // the zombie wakes up and goes on: its call is refused before anything is kept, and not as a tool error
      await assert.rejects(
        zombieTools.client.callTool('open_ticket', { customer_id: 'C-2', subject: 'zombie' }),
        (err: unknown) => {
          assert.ok(err instanceof InfrastructureError, String(err));
          assert.match(err.message, /no longer holds the episode/);
          return true;
        },
      );
      await assert.rejects(
        zombieTools.executor.call('open_ticket', { customer_id: 'C-2', subject: 'zombie again' }),
        stale,
      );
      await assert.rejects(
        new EpisodeCheckpoints(zombie).save({
          episodeId: id,
          loop: {
            conversation: { system: '', tools: [], turns: [] },
            agentTurns: [],
            userTurns: 0,
            usage: {
              agent: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
              user: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
            },
            userModel: null,
            timings: { agentMs: 0, toolsMs: 0, userMs: 0 },
            elapsedMs: 0,
          },
          policy: null,
          toolCalls: [],
          resumedAt: [],
        }),
        stale,
      );
      // the retry's calls take the next indexes, and every one is kept
      const second = await retryTools.client.callTool('open_ticket', { customer_id: 'C-2', subject: 'two' });
      assert.deepEqual([second.isError, second.callIndex], [false, 1], second.content);
      const third = await retryTools.client.callTool('open_ticket', { customer_id: 'C-1', subject: 'three' });
      assert.deepEqual([third.isError, third.callIndex], [false, 2], third.content);
      const rows = await retry.pool.query<{ subject: string }>('SELECT subject FROM tickets ORDER BY ticket_id');
      assert.deepEqual(
        rows.rows.map((r) => r.subject).filter((s) => ['one', 'two', 'three', 'zombie', 'zombie again'].includes(s)),
        ['one', 'two', 'three'],
      );

      // the zombie's teardown lets go of its connections only: the database is the retry's
      await zombieTools.close();
      await env.backend.teardown(zombie);
      assert.ok(await exists(retry.database), 'the database survived the zombie teardown');
      const fourth = await retryTools.client.callTool('get_order', { order_id: 'O-1' });
      assert.deepEqual([fourth.isError, fourth.callIndex], [false, 3]);
    } finally {
      await retryTools.close();
      await env.backend.teardown(retry, { wait: true });
    }
    assert.ok(!(await exists(retry.database)), "the retry's teardown removed it");
  });

  it('an older attempt cannot take over from a newer one; the newer keeps writing', async () => {
    const task = fixtureTask('hold-ticket');
    const id = uniqueEpisodeId('older');
    const newer = await env.backend.open(id, task, { attempt: 3 });
    try {
      await assert.rejects(env.backend.open(id, task, { attempt: 2 }), (err: unknown) => {
        stale(err);
        assert.match((err as Error).message, /attempt 2 is older than attempt 3/);
        return true;
      });
      const tools = await connectEpisodeTools(env.backend, newer);
      try {
        const call = await tools.client.callTool('open_ticket', { customer_id: 'C-1', subject: 'kept' });
        assert.deepEqual([call.isError, call.callIndex], [false, 0]);
      } finally {
        await tools.close();
      }
      // a newer attempt takes over in turn: from then on the previous holder runs nothing under the lease
      const next = await env.backend.open(id, task, { attempt: 4 });
      await assert.rejects(
        env.backend.underLease(newer, async () => assert.fail('a stale attempt ran under the lease')),
        stale,
      );
      await env.backend.teardown(newer);
      await env.backend.teardown(next, { wait: true });
    } finally {
      await env.backend.detach(newer).catch(() => undefined);
    }
  });

  it('a finished episode (retired) is not reattached: a late retry waits for its database to go, then starts afresh', async () => {
    const task = fixtureTask('hold-ticket');
    const id = uniqueEpisodeId('retired');
    const finished = await env.backend.open(id, task, { attempt: 1 });
    const tools = await connectEpisodeTools(env.backend, finished);
    await tools.client.callTool('open_ticket', { customer_id: 'C-1', subject: 'first run' });
    await tools.close();
    await env.backend.teardown(finished);
    const late = await env.backend.open(id, task, { attempt: 2 });
    try {
      assert.equal(late.reattached, false, 'provisioned afresh');
      const rows = await late.pool.query("SELECT count(*)::int AS n FROM tickets WHERE subject = 'first run'");
      assert.equal(rows.rows[0].n, 0);
    } finally {
      await env.backend.teardown(late, { wait: true });
    }
  });
});

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sweepLeakedEpisodes } from '../../environment/janitor.js';
import { literal } from '../../environment/sql.js';
import { fixtureEnvironment, fixtureTask, uniqueEpisodeId } from './harness.js';

describe('janitor', () => {
  const env = fixtureEnvironment({ sparesPerTemplate: 0 });
  after(() => env.close());

  const exists = async (table: 'pg_database' | 'pg_roles', column: string, name: string) =>
    ((await env.backend.admin.query(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [name])).rowCount ?? 0) > 0;

  it('drops leaked episode databases older than the TTL and their roles, and leaves young ones alone', async () => {
    const task = fixtureTask('cancel-O-1');
    const leaked = await env.backend.provision(uniqueEpisodeId('leaked'), task);
    const young = await env.backend.provision(uniqueEpisodeId('young'), task);
    await env.backend.detach(leaked); // as if its process died: database and role stay behind
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000).toISOString();
    await env.backend.admin.query(
      `COMMENT ON DATABASE ${leaked.database} IS ${literal(JSON.stringify({ episodeId: leaked.episodeId, createdAt: twoHoursAgo }))}`,
    );
    try {
      const report = await sweepLeakedEpisodes(env.backend.admin, { ttlMs: 3600_000 });
      assert.ok(report.droppedDatabases.includes(leaked.database));
      assert.ok(report.droppedRoles.includes(leaked.role));
      assert.ok(!report.droppedDatabases.includes(young.database));
      assert.equal(await exists('pg_database', 'datname', leaked.database), false);
      assert.equal(await exists('pg_roles', 'rolname', leaked.role), false);
      assert.equal(await exists('pg_database', 'datname', young.database), true);
      assert.equal(await exists('pg_roles', 'rolname', young.role), true);
      const stillWorks = await young.pool.query('SELECT count(*)::int AS n FROM orders');
      assert.equal(stillWorks.rows[0].n, 4);
    } finally {
      await env.backend.teardown(young, { wait: true });
    }
  });
});

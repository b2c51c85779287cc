import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { withClient } from '../../infra/stack/postgres.js';
import { loadConfig } from '../../workers/config.js';
import { connectionConfig } from '../../environment/connection.js';
import { EnvironmentBackend, type Episode } from '../../environment/backend.js';
import type { DomainDefinition } from '../../environment/domain.js';
import { DomainRegistry } from '../../environment/registry.js';
import { fixtureHelpdeskDomain } from '../fixtures/fixture-helpdesk-domain.js';
import { fixtureTask, uniqueEpisodeId } from './harness.js';

/**
 * The fixture pack plus what a reset must get right beyond plain rows: a serial sequence, an identity column and a
 * generated column, and a trigger (which must not fire while rows are copied back).
 */
const recyclingDomain: DomainDefinition = {
  ...fixtureHelpdeskDomain,
  schemaSql: `${fixtureHelpdeskDomain.schemaSql}
CREATE TABLE notes (
  note_id serial PRIMARY KEY,
  serial_no integer GENERATED ALWAYS AS IDENTITY,
  body text NOT NULL,
  body_length integer GENERATED ALWAYS AS (length(body)) STORED
);
CREATE FUNCTION count_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN UPDATE customers SET name = name || '+' WHERE customer_id = 'C-1'; RETURN NEW; END $$;
CREATE TRIGGER count_note AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION count_note();
`,
  seed: { ...fixtureHelpdeskDomain.seed, notes: [{ body: 'first' }, { body: 'second note' }] },
  grading: {
    ...fixtureHelpdeskDomain.grading,
    notes: { primaryKey: ['note_id'], ignoreColumns: [], canonicalize: {} },
  },
};

/** Everything an episode could see of its database's contents, read as the admin: rows in physical order, sequences. */
async function contents(config: ReturnType<typeof loadConfig>, episode: Episode) {
  return withClient(config, episode.database, async (c) => {
    const tables = await c.query<{ relname: string }>(
      "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY relname",
    );
    const rows: Record<string, unknown[]> = {};
    for (const { relname } of tables.rows) {
      // no ORDER BY: a tool that forgets one must get the rows in the same order from a reset database
      const res = await c.query(`SELECT * FROM "${relname}"`);
      rows[relname] =
        relname === '_finalstate_episode'
          ? res.rows.map((r: Record<string, unknown>) => r.task_id)
          : res.rows.map((r: Record<string, unknown>) => JSON.stringify(r));
    }
    const sequences = await c.query('SELECT sequencename, last_value FROM pg_sequences ORDER BY sequencename');
    const largeObjects = await c.query('SELECT count(*)::int AS n FROM pg_largeobject_metadata');
    const written = await c.query<{ n: number }>(
      "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::int AS n FROM pg_stat_user_tables WHERE relname NOT LIKE '\\_finalstate%'",
    );
    return { rows, sequences: sequences.rows, largeObjects: largeObjects.rows[0].n, written: written.rows[0]!.n };
  });
}

async function databaseOid(config: ReturnType<typeof loadConfig>, name: string): Promise<number | undefined> {
  return withClient(config, undefined, async (c) => {
    const res = await c.query<{ oid: number }>('SELECT oid FROM pg_database WHERE datname = $1', [name]);
    return res.rows[0]?.oid;
  });
}

describe('torn-down episode databases reset to their template state and reused', () => {
  const config = loadConfig();
  const registry = new DomainRegistry([recyclingDomain]);
  const copying = new EnvironmentBackend(config, registry, { sparesPerTemplate: 0, reuse: 'drop' });
  after(() => copying.close());

  it('gives the next episode the state of a fresh copy, whatever the last one did; the last role is gone', async () => {
    const reusing = new EnvironmentBackend(config, registry, { sparesPerTemplate: 2, reuse: 'reset' });
    const task = fixtureTask('cancel-O-1');
    await reusing.warmSpares(recyclingDomain);
    const a = await reusing.provision(uniqueEpisodeId('recycle-a'), task);
    const aOid = await databaseOid(config, a.database);
    // everything episode A's role (tool SQL, or someone holding its credentials) can change in its database
    await a.pool.query(`UPDATE orders SET status = 'shipped'; DELETE FROM tickets; UPDATE customers SET email = 'x@y'`);
    await a.pool.query("INSERT INTO notes (body) VALUES ('from episode a'), ('another')");
    await a.pool.query("SELECT setval('notes_note_id_seq', 500)");
    await assert.rejects(a.pool.query('SELECT lo_create(0)'), /permission denied for function lo_create/);
    await withClient(config, a.database, (c) => c.query('SELECT lo_create(0)')); // left by something else: reset too
    await a.pool.query(`ALTER DEFAULT PRIVILEGES FOR ROLE "${a.role}" GRANT SELECT ON TABLES TO PUBLIC`);
    const password = (a.pool as unknown as { options: { password: string } }).options.password;
    const own = new pg.Client({ ...connectionConfig(config, a.database), user: a.role, password });
    own.on('error', () => undefined);
    await own.connect();
    await own.query('SELECT 1');

    // the pool gave one spare to A and refills one copy at a time, so it wants A's database back
    await reusing.teardown(a, { wait: true });
    await assert.rejects(own.query('SELECT 1'), 'the session A opened itself was ended');
    await own.end().catch(() => undefined);
    await withClient(config, undefined, async (c) => {
      assert.equal((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [a.database])).rowCount, 0);
      assert.equal((await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [a.role])).rowCount, 0);
      const kept = await c.query<{ datname: string; datallowconn: boolean }>(
        'SELECT datname, datallowconn FROM pg_database WHERE oid = $1',
        [aOid],
      );
      assert.match(kept.rows[0]?.datname ?? '', /^fs_sp_/, "A's database is kept as a spare");
      assert.equal(kept.rows[0]?.datallowconn, false, 'closed to connections until its next episode is granted it');
    });

    // the pool holds A's database and maybe a new copy: the episode that gets A's is compared with a fresh copy
    const next = [
      await reusing.provision(uniqueEpisodeId('recycle-b'), task),
      await reusing.provision(uniqueEpisodeId('recycle-c'), task),
    ];
    const fresh = await copying.provision(uniqueEpisodeId('recycle-fresh'), task);
    try {
      const oids = await Promise.all(next.map((e) => databaseOid(config, e.database)));
      const b = next[oids.indexOf(aOid)];
      assert.ok(b, "a later episode got A's database back");
      assert.deepEqual(await contents(config, b), await contents(config, fresh));
      const seen = await b.pool.query("SELECT name FROM customers WHERE customer_id = 'C-1'");
      // the seed's two notes fired the trigger once each in the template; copying the rows back fired it no more
      assert.equal(seen.rows[0].name, 'Ada Moreau++');
      const old = new pg.Client({ ...connectionConfig(config, b.database), user: a.role, password });
      await assert.rejects(old.connect(), /password authentication failed|does not exist|no pg_hba.conf entry/);
      await old.end().catch(() => undefined);
    } finally {
      for (const e of next) await reusing.teardown(e, { wait: true });
      await copying.teardown(fresh, { wait: true });
    }
    await reusing.close();
    assert.equal(await databaseOid(config, a.database), undefined);
    assert.equal(
      await withClient(
        config,
        undefined,
        async (c) => (await c.query('SELECT 1 FROM pg_database WHERE oid = $1', [aOid])).rowCount,
      ),
      0,
      'close() dropped the spares, reset ones included',
    );
  });

  it('drops a torn-down database instead when the pool is full', async () => {
    // one spare per template: two databases in circulation, ready or handed out
    const backend = new EnvironmentBackend(config, registry, { sparesPerTemplate: 1, reuse: 'reset' });
    try {
      const task = fixtureTask('cancel-O-1');
      await backend.warmSpares(recyclingDomain);
      const episodes = [];
      for (const label of ['full-a', 'full-b', 'full-c'])
        episodes.push(await backend.provision(uniqueEpisodeId(label), task));
      const oids = await Promise.all(episodes.map((e) => databaseOid(config, e.database)));
      for (const e of episodes) await backend.teardown(e, { wait: true });
      const kept = await withClient(config, undefined, async (c) =>
        (await c.query<{ oid: number }>('SELECT oid FROM pg_database WHERE oid = ANY($1)', [oids])).rows.map(
          (r) => r.oid,
        ),
      );
      assert.deepEqual(kept.sort(), oids.slice(0, 2).sort(), 'the two from the pool came back; the third was dropped');
    } finally {
      await backend.close();
    }
  });
});

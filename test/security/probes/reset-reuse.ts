/**
 * Reset and reuse under a hostile episode: what episode A leaves in its database must not reach the next episode
 * that gets the same database, and A's teardown must not hurt anyone else.
 */
import pg from 'pg';
import type { Episode } from '../../../environment/backend.js';
import { connectionConfig } from '../../../environment/connection.js';
import type { DomainDefinition } from '../../../environment/domain.js';
import { EPISODE_GROUP_ROLE } from '../../../environment/naming.js';
import { DomainRegistry } from '../../../environment/registry.js';
import { ident } from '../../../environment/sql.js';
import { EpisodeToolExecutor } from '../../../environment/tool-executor.js';
import { withClient } from '../../../infra/stack/postgres.js';
import type { LoadedConfig } from '../../../schemas/config.js';
import { fixtureHelpdeskDomain } from '../../fixtures/fixture-helpdesk-domain.js';
import { fixtureEnvironment, fixtureTask, uniqueEpisodeId } from '../../environment/harness.js';
import { asEpisode, message, refused } from '../attacker.js';
import type { ProbeResult, SecurityProbe } from '../probe.js';

type Env = ReturnType<typeof fixtureEnvironment>;

const LARGE_OBJECTS = 40_000;

const databaseOid = (config: LoadedConfig, name: string) =>
  withClient(config, undefined, async (c) => {
    const res = await c.query<{ oid: number }>('SELECT oid FROM pg_database WHERE datname = $1', [name]);
    return res.rows[0]?.oid;
  });

/**
 * Episode A runs `attack` and is torn down; the next episode of a backend whose spare pool wants A's database back
 * gets it (one spare per template, warmed: A's comes back on top of the pool). `inspect` sees that next episode,
 * and whether it really is A's database after a reset (false: A's database was dropped instead of reused).
 */
async function reuseCycle<T>(
  env: Env,
  label: string,
  attack: (a: Episode) => Promise<void>,
  inspect: (next: Episode, reused: boolean) => Promise<T>,
): Promise<T> {
  const domain = env.registry.get(fixtureHelpdeskDomain.name);
  const task = fixtureTask('cancel-O-1');
  await env.backend.warmSpares(domain);
  const a = await env.backend.provision(uniqueEpisodeId(`${label}-a`), task);
  const aOid = await databaseOid(env.config, a.database);
  try {
    await attack(a);
  } catch (err) {
    await env.backend.teardown(a, { wait: true }).catch(() => undefined);
    throw err;
  }
  await env.backend.teardown(a, { wait: true });
  const next = await env.backend.provision(uniqueEpisodeId(`${label}-next`), task);
  try {
    return await inspect(next, (await databaseOid(env.config, next.database)) === aOid);
  } finally {
    await env.backend.teardown(next, { wait: true });
  }
}

/**
 * Writes that run from `start` until `stop`: another episode's tool calls (a backend of its own, as another worker
 * would have), and inserts into the control database.
 */
function concurrentWriters(config: LoadedConfig) {
  const other = fixtureEnvironment({ sparesPerTemplate: 0 });
  const control = new pg.Client(connectionConfig(config));
  control.on('error', () => undefined);
  const failures: string[] = [];
  let writes = 0;
  let stopping = false;
  let running: Promise<unknown> = Promise.resolve();
  let episode: Episode | undefined;
  return {
    async start(): Promise<void> {
      await control.connect();
      await control.query('CREATE TEMP TABLE probe_writes (n integer)');
      const b = (episode = await other.backend.provision(uniqueEpisodeId('lo-writer'), fixtureTask('cancel-O-1')));
      const executor = new EpisodeToolExecutor(other.backend, b);
      const episodeWrites = (async () => {
        for (let i = 0; !stopping; i++) {
          writes++;
          const outcome = await executor
            .call('update_email', { customer_id: 'C-1', email: `w${i}@example.com` })
            .catch((err: Error) => ({ isError: true as const, message: err.message }));
          if (outcome.isError) failures.push(`episode B's tool call: ${outcome.message}`);
        }
      })();
      const controlWrites = (async () => {
        for (let i = 0; !stopping; i++) {
          writes++;
          await control
            .query('INSERT INTO probe_writes VALUES ($1)', [i])
            .catch((err: Error) => failures.push(`control database: ${err.message}`));
        }
      })();
      running = Promise.all([episodeWrites, controlWrites]);
    },
    async stop(): Promise<{ writes: number; failures: string[] }> {
      stopping = true;
      await running;
      if (episode) await other.backend.teardown(episode, { wait: true }).catch(() => undefined);
      await control.end().catch(() => undefined);
      await other.close();
      return { writes, failures };
    },
  };
}

const largeObjects: SecurityProbe = {
  area: 'reset-reuse',
  name: 'large objects',
  run: async () => {
    const env = fixtureEnvironment({ sparesPerTemplate: 1 });
    const writers = concurrentWriters(env.config);
    let written: { writes: number; failures: string[] } | undefined;
    try {
      const results: ProbeResult[] = [];
      const seen = await reuseCycle(
        env,
        'lo',
        async (a) => {
          const create = `SELECT count(lo_create(0))::int AS n FROM generate_series(1, ${LARGE_OBJECTS})`;
          results.push(
            await refused(`episode A's role creates ${LARGE_OBJECTS.toLocaleString('en')} large objects`, async () => {
              const started = Date.now();
              const res = await asEpisode<{ n: number }>(env.config, a, create);
              return `created ${res.rows[0]!.n} in ${Date.now() - started} ms`;
            }),
          );
          // left there anyway, as on a server where that could not be revoked: the reset must cope
          await withClient(env.config, a.database, async (c) => {
            const have = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_largeobject_metadata');
            if (have.rows[0]!.n < LARGE_OBJECTS) await c.query(create);
          });
          // others write all through A's teardown
          await writers.start();
        },
        async (next, reused) => {
          written = await writers.stop();
          const left = await withClient(env.config, next.database, async (c) => {
            const res = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_largeobject_metadata');
            return res.rows[0]!.n;
          });
          return { reused, left };
        },
      );
      const w = written!;
      results.push({
        attempt: `${LARGE_OBJECTS.toLocaleString('en')} large objects in an episode database (made by the superuser), reset while another episode and the control database are written`,
        outcome: `${seen.reused ? "the next episode got A's database back" : "A's database was dropped instead of reused"}, with ${seen.left} large object(s); ${w.failures.length} of ${w.writes} concurrent writes failed${w.failures.length ? ` (first: ${w.failures[0]})` : ''}`,
        held: seen.reused && seen.left === 0 && w.failures.length === 0 && w.writes > 0,
      });
      return results;
    } finally {
      if (!written) await writers.stop().catch(() => undefined);
      await env.close();
    }
  },
};

/** A pack whose schema SQL makes a table outside `public` and lets the episode roles write it. */
function secondSchemaPack(name: string, schemaSql: string): DomainDefinition {
  return {
    ...fixtureHelpdeskDomain,
    name,
    schemaSql: `${fixtureHelpdeskDomain.schemaSql}
${schemaSql}
CREATE TABLE side.notes (body text NOT NULL);
GRANT USAGE ON SCHEMA side TO ${EPISODE_GROUP_ROLE};
GRANT SELECT, INSERT ON side.notes TO ${EPISODE_GROUP_ROLE};`,
  };
}

const secondSchema: SecurityProbe = {
  area: 'reset-reuse',
  name: 'a pack with a second schema',
  run: async () => {
    const results: ProbeResult[] = [];
    for (const [how, name, sql] of [
      ['CREATE SCHEMA', 'probe_second_schema', 'CREATE SCHEMA side;'],
      [
        'a schema made by dynamic SQL (DO … EXECUTE)',
        'probe_dynamic_schema',
        "DO $$ BEGIN EXECUTE 'CREATE ' || 'SCHEMA side'; END $$;",
      ],
    ] as const) {
      const attempt = `a pack whose schema SQL holds ${how} and a table there; episode B reads what episode A wrote in it`;
      const pack = secondSchemaPack(name, sql);
      let registry: DomainRegistry;
      try {
        registry = new DomainRegistry([pack]);
      } catch (err) {
        results.push({ attempt, outcome: `refused at registration: ${message(err)}`, held: true });
        continue;
      }
      const env = fixtureEnvironment({ sparesPerTemplate: 1 });
      env.registry.register(registry.get(name));
      try {
        const task = { ...fixtureTask('cancel-O-1'), domain: name };
        const template = await env.backend.template(env.registry.get(name)).then(
          () => undefined,
          (err: unknown) => message(err),
        );
        if (template !== undefined) {
          results.push({ attempt, outcome: `refused when its template was built: ${template}`, held: true });
          continue;
        }
        await env.backend.warmSpares(env.registry.get(name));
        const a = await env.backend.provision(uniqueEpisodeId('schema-a'), task);
        await asEpisode(env.config, a, "INSERT INTO side.notes VALUES ('written by episode A')");
        await env.backend.teardown(a, { wait: true });
        const b = await env.backend.provision(uniqueEpisodeId('schema-b'), task);
        try {
          const read = await asEpisode<{ body: string }>(env.config, b, 'SELECT body FROM side.notes');
          results.push({
            attempt,
            outcome: `accepted; episode B read ${read.rowCount} row(s)${read.rowCount ? `: ${JSON.stringify(read.rows[0]!.body)}` : ''}`,
            held: read.rowCount === 0,
          });
        } finally {
          await env.backend.teardown(b, { wait: true });
        }
      } finally {
        await env.close();
      }
    }
    return results;
  },
};

/** What the next episode on a database can read of the per-database state its predecessor could try to set. */
async function perDatabaseState(config: LoadedConfig, episode: Episode): Promise<string[]> {
  return withClient(config, episode.database, async (c) => {
    const res = await c.query<{ entry: string }>(`
      SELECT 'default privileges ' || defaclrole::regrole::text || coalesce(' in ' || nullif(defaclnamespace, 0)::regnamespace::text, '')
        || ' ' || defaclobjtype::text || ' ' || defaclacl::text AS entry FROM pg_default_acl
      UNION ALL SELECT 'setting of ' || coalesce(nullif(setrole, 0)::regrole::text, 'the database') || ' ' || array_to_string(setconfig, ',')
        FROM pg_db_role_setting WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
      UNION ALL SELECT 'comment on orders: ' || obj_description('public.orders'::regclass, 'pg_class') WHERE obj_description('public.orders'::regclass, 'pg_class') IS NOT NULL
      UNION ALL SELECT 'schema ' || nspname FROM pg_namespace WHERE nspname = 'left_by_a'
      UNION ALL SELECT 'function ' || oid::regprocedure::text FROM pg_proc WHERE proname = 'left_by_a'
      UNION ALL SELECT 'publication ' || pubname FROM pg_publication
      UNION ALL SELECT 'event trigger ' || evtname FROM pg_event_trigger
      UNION ALL SELECT 'extension ' || extname FROM pg_extension WHERE extname <> 'plpgsql'
      ORDER BY 1`);
    return res.rows.map((r) => r.entry);
  });
}

const short = (sql: string) => sql.split(' ').slice(0, 6).join(' ');

const perDatabase: SecurityProbe = {
  area: 'reset-reuse',
  name: 'per-database state for the next episode',
  run: async () => {
    const env = fixtureEnvironment({ sparesPerTemplate: 1 });
    try {
      // statement -> its error (undefined: it ran)
      const outcomes = {
        defaults: new Map<string, string | undefined>(),
        other: new Map<string, string | undefined>(),
      };
      const group = ident(EPISODE_GROUP_ROLE);
      const seen = await reuseCycle(
        env,
        'defacl',
        async (a) => {
          const self = ident(a.role);
          const defaults = [
            `ALTER DEFAULT PRIVILEGES FOR ROLE ${group} GRANT SELECT ON TABLES TO PUBLIC`,
            `ALTER DEFAULT PRIVILEGES FOR ROLE ${group} IN SCHEMA public GRANT INSERT ON TABLES TO PUBLIC`,
            `ALTER DEFAULT PRIVILEGES FOR ROLE ${group} GRANT USAGE ON TYPES TO ${self}`,
            `ALTER DEFAULT PRIVILEGES FOR ROLE ${self} GRANT SELECT ON TABLES TO PUBLIC`,
          ];
          const other = [
            `ALTER ROLE ${self} IN DATABASE ${ident(a.database)} SET work_mem = '64kB'`,
            `ALTER ROLE ${group} IN DATABASE ${ident(a.database)} SET work_mem = '64kB'`,
            `ALTER DATABASE ${ident(a.database)} SET work_mem = '64kB'`,
            `COMMENT ON TABLE orders IS 'left by episode A'`,
            'CREATE SCHEMA left_by_a',
            'CREATE TEMP TABLE left_by_a (n int)',
            'CREATE FUNCTION public.left_by_a() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
            'CREATE PUBLICATION left_by_a',
            'CREATE EXTENSION IF NOT EXISTS pgcrypto',
            'CREATE EVENT TRIGGER left_by_a ON ddl_command_start EXECUTE FUNCTION pg_catalog.pg_event_trigger_ddl_commands()',
          ];
          for (const [kind, list] of [
            ['defaults', defaults],
            ['other', other],
          ] as const)
            for (const sql of list)
              outcomes[kind].set(
                sql,
                await asEpisode(env.config, a, sql).then(
                  () => undefined,
                  (err: Error) => err.message,
                ),
              );
        },
        async (next, reused) => ({ reused, state: await perDatabaseState(env.config, next) }),
      );
      const ran = (map: Map<string, string | undefined>) =>
        [...map].filter(([, err]) => err === undefined).map(([sql]) => short(sql));
      const refusedCount = [...outcomes.other.values()].filter((err) => err !== undefined).length;
      const defaults = seen.state.filter((s) => s.startsWith('default privileges'));
      const rest = seen.state.filter((s) => !s.startsWith('default privileges'));
      const reuse = seen.reused ? "the next episode got A's database back" : "A's database was not reused";
      return [
        {
          attempt:
            "episode A's role sets default privileges, for itself and for the episode group; the next episode on the same database reads them",
          outcome: `${ran(outcomes.defaults).length} of ${outcomes.defaults.size} ran; ${reuse}; it sees ${defaults.length ? defaults.join('; ') : 'no default privileges'}`,
          held: seen.reused && defaults.length === 0,
        },
        {
          attempt:
            "episode A's role leaves other per-database state: role and database settings, a comment, a schema, a temporary table, a function, a publication, an extension, an event trigger",
          outcome: `${refusedCount} of ${outcomes.other.size} statements refused; ran: ${ran(outcomes.other).join('; ') || 'none'}; ${reuse}; it sees ${rest.length ? rest.join('; ') : 'none of it'}`,
          held: seen.reused && rest.length === 0,
        },
      ];
    } finally {
      await env.close();
    }
  },
};

const probes: SecurityProbe[] = [largeObjects, secondSchema, perDatabase];
export default probes;

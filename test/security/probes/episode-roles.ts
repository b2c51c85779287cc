/**
 * What an episode role's own sessions may do beyond its database's rows: run unbounded, see the other live episodes
 * (their names, sessions, counters, locks), or fill the lock table every session of the cluster shares.
 */
import { sha256Hex } from '../../../environment/canonical.js';
import { loadConfig } from '../../../workers/config.js';
import type { LoadedConfig } from '../../../schemas/config.js';
import { asEpisode, connectAs, loginOf, message, withEpisodes as withTwoEpisodes } from '../attacker.js';
import type { ProbeResult, SecurityProbe } from '../probe.js';

/** Two episodes, A and B, on a backend that provisions without spares. */
const withEpisodes = (label: string, fn: Parameters<typeof withTwoEpisodes>[1], config?: LoadedConfig) =>
  withTwoEpisodes(label, fn, { sparesPerTemplate: 0 }, config);

/** Short bounds, so that a query past them shows in a second. */
const BOUNDS = { statementTimeoutMs: 500, idleInTransactionTimeoutMs: 1500, lockTimeoutMs: 300 };

function boundedConfig(): LoadedConfig {
  const config = loadConfig();
  const episodeBounds = { ...config.postgres.episodeBounds, ...BOUNDS } as LoadedConfig['postgres']['episodeBounds'];
  return { ...config, postgres: { ...config.postgres, episodeBounds } };
}

const TIMEOUTS = ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout'] as const;
const EXPECTED: Record<(typeof TIMEOUTS)[number], string> = {
  statement_timeout: `${BOUNDS.statementTimeoutMs}ms`,
  lock_timeout: `${BOUNDS.lockTimeoutMs}ms`,
  idle_in_transaction_session_timeout: `${BOUNDS.idleInTransactionTimeoutMs}ms`,
};

/** The three timeouts of a session, as `SHOW` names them, and whether each is the configured bound. */
async function timeouts(query: (sql: string) => Promise<{ rows: Record<string, string>[] }>) {
  const shown: string[] = [];
  let bounded = true;
  for (const name of TIMEOUTS) {
    const value = (await query(`SELECT setting || coalesce(unit, '') AS v FROM pg_settings WHERE name = '${name}'`))
      .rows[0]!.v!;
    shown.push(`${name} ${value}`);
    if (value !== EXPECTED[name]) bounded = false;
  }
  return { text: shown.join(', '), bounded };
}

const directSession: SecurityProbe = {
  area: 'episode-roles',
  name: "a direct session's bounds",
  run: () =>
    withEpisodes(
      'bounds',
      async (env, a) => {
        const results: ProbeResult[] = [];
        const own = await connectAs(env.config, a.database, loginOf(a));
        if (!own.client) throw new Error(own.error);
        try {
          const got = await timeouts((sql) => own.client!.query(sql));
          results.push({
            attempt: "a session of episode A's role opened with its credentials alone (none of the runtime's options)",
            outcome: got.text,
            held: got.bounded,
          });
          const started = Date.now();
          const sleep = await own.client.query('SELECT pg_sleep(12)').then(
            () => `ran to the end: ${Date.now() - started} ms`,
            (err: Error & { code?: string }) => ({
              code: err.code,
              text: `${err.message} after ${Date.now() - started} ms`,
            }),
          );
          results.push({
            attempt: 'that session runs a 12 s query',
            outcome: typeof sleep === 'string' ? sleep : `cancelled: ${sleep.text}`,
            held: typeof sleep !== 'string' && sleep.code === '57014',
          });
        } finally {
          await own.client.end().catch(() => undefined);
        }

        // tool SQL lifts them in the runtime's own sessions, and in the role's defaults for new ones
        const clients = await Promise.all([env.backend.connect(a), env.backend.connect(a)]);
        for (const c of clients)
          await c.query(
            `SET statement_timeout = 0; SET lock_timeout = 0; SET idle_in_transaction_session_timeout = 0; ALTER ROLE CURRENT_USER SET statement_timeout = 0; ALTER ROLE CURRENT_USER SET lock_timeout = 0`,
          );
        clients.forEach((c) => c.release());
        const pooled = await env.backend.connect(a);
        try {
          const got = await timeouts((sql) => pooled.query(sql));
          results.push({
            attempt:
              "tool SQL sets the timeouts to 0 in the runtime's pooled sessions and in its role's defaults; the next tool call's session",
            outcome: got.text,
            held: got.bounded,
          });
        } finally {
          pooled.release();
        }
        return results;
      },
      boundedConfig(),
    ),
};

const liftedSession: SecurityProbe = {
  area: 'episode-roles',
  name: 'a direct session that lifts its own bounds',
  run: () =>
    withEpisodes('lifted', async (env, a) => {
      const own = await connectAs(env.config, a.database, loginOf(a));
      if (!own.client) throw new Error(own.error);
      // a user setting: any session may change it for itself (PostgreSQL checks no privilege for it)
      await own.client.query('SET statement_timeout = 0');
      const sleeping = own.client.query('SELECT pg_sleep(600)').then(
        () => 'it ran to the end',
        (err: Error) => `ended: ${err.message}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await env.backend.teardown(a, { wait: true });
      const timer = new Promise<string>((resolve) =>
        setTimeout(() => resolve('still running 20 s after the teardown'), 20_000).unref(),
      );
      const outcome = await Promise.race([sleeping, timer]);
      await own.client.end().catch(() => undefined);
      return [
        {
          attempt: "a session of episode A's role sets statement_timeout = 0 and sleeps 600 s; A is torn down",
          outcome,
          held: outcome.startsWith('ended'),
        },
      ];
    }),
};

/** Fragments of an episode id a name could carry: its words of 6+ characters, and its hash as the old names had it. */
function idFragments(episodeId: string): string[] {
  const words = episodeId
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 6);
  return [...words, sha256Hex(episodeId).slice(0, 12)];
}

const otherEpisodes: SecurityProbe = {
  area: 'episode-roles',
  name: 'see the other live episodes',
  run: () =>
    withEpisodes('names', async (env, a, b) => {
      const results: ProbeResult[] = [];
      await b.pool.query('SELECT 1'); // B holds a session
      const names = await asEpisode<{ name: string }>(
        env.config,
        a,
        'SELECT datname AS name FROM pg_database UNION ALL SELECT rolname FROM pg_roles',
      );
      const fragments = idFragments(b.episodeId);
      const naming = names.rows.filter((r) => fragments.some((f) => r.name.includes(f))).map((r) => r.name);
      results.push({
        attempt: `episode A's role lists every database and role name, looking for episode B's id (${b.episodeId})`,
        outcome: naming.length
          ? `${naming.length} name(s) carry it: ${naming.join(', ')}`
          : `${names.rowCount} names, none carries any part of it (B's database: ${b.database})`,
        held: naming.length === 0,
      });
      for (const [attempt, sql, leaks] of [
        [
          "episode A's role reads the other sessions (pg_stat_activity)",
          'SELECT datname, usename, state, backend_start FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND usename IS NOT NULL',
          (rows: Record<string, unknown>[]) => rows.filter((r) => r.usename !== a.role),
        ],
        [
          "episode A's role reads episode B's database counters (pg_stat_database)",
          'SELECT datname, xact_commit, tup_inserted FROM pg_stat_database WHERE datname = $1',
          (rows: Record<string, unknown>[]) => rows,
        ],
        [
          "episode A's role reads the locks of other sessions (pg_locks)",
          'SELECT locktype, database, pid FROM pg_locks WHERE pid <> pg_backend_pid()',
          (rows: Record<string, unknown>[]) => rows,
        ],
      ] as const) {
        const got = await asEpisode(env.config, a, sql, sql.includes('$1') ? [b.database] : []).then(
          (res) => leaks(res.rows),
          (err: Error) => err,
        );
        results.push({
          attempt,
          outcome: got instanceof Error ? `refused: ${got.message}` : `read ${got.length} row(s) about others`,
          held: got instanceof Error || got.length === 0,
        });
      }
      return results;
    }),
};

const lockTable: SecurityProbe = {
  area: 'episode-roles',
  name: 'fill the shared lock table',
  run: () =>
    withEpisodes('locks', async (env, a) => {
      const got = await asEpisode(
        env.config,
        a,
        'SELECT count(pg_advisory_xact_lock(g)) FROM generate_series(1, 100000) g',
      ).then(
        () => ({ code: undefined, text: 'took 100,000 advisory locks' }),
        (err: Error & { code?: string }) => ({ code: err.code, text: message(err) }),
      );
      return [
        {
          attempt:
            "episode A's role takes 100,000 advisory locks in one transaction (the lock table every session shares)",
          outcome: got.code === '42501' ? `refused: ${got.text}` : `not refused: ${got.text}`,
          held: got.code === '42501',
        },
      ];
    }),
};

const probes: SecurityProbe[] = [directSession, liftedSession, otherEpisodes, lockTable];
export default probes;

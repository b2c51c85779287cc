import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { EnvironmentBackend, type Episode } from '../../../environment/backend.js';
import { EpisodeToolExecutor } from '../../../environment/tool-executor.js';
import { INTERNALS_OWNER_ROLE } from '../../../environment/naming.js';
import { superuserPassword } from '../../../environment/superuser-password.js';
import { projectRoot } from '../../../core/paths.js';
import { isManaged, withClient } from '../../../infra/stack/postgres.js';
import { connectionConfig } from '../../../environment/connection.js';
import { EpisodeCheckpoints } from '../../../runtime/episode/checkpoint.js';
import { fixtureEnvironment, fixtureTask, uniqueEpisodeId } from '../../environment/harness.js';
import type { TurnCheckpoint } from '../../../schemas/checkpoint.js';
import { ident } from '../../../environment/sql.js';
import type { ProbeResult, SecurityProbe } from '../probe.js';
import {
  asEpisode as asEpisodeRole,
  connectAs,
  connectRefused as connectWith,
  loginOf,
  refused,
  withEpisodes,
  type Env,
  type Login,
} from '../attacker.js';

const shown = (file: string) => path.relative(projectRoot, file);

const connectRefused = (env: Env, attempt: string, database: string, login: Login) =>
  connectWith(env.config, attempt, database, login);

const asEpisode = <T extends pg.QueryResultRow>(env: Env, episode: Episode, sql: string, params: unknown[] = []) =>
  asEpisodeRole<T>(env.config, episode, sql, params);

const connect: SecurityProbe = {
  area: 'cross-episode',
  name: 'connect beyond its own database',
  run: () =>
    withEpisodes('connect', async (env, a, b) => {
      const login = loginOf(a);
      const template = await env.backend.template(a.domain);
      return [
        await connectRefused(env, "episode A's role connects to episode B's database", b.database, login),
        await connectRefused(env, "episode A's role connects to template1", 'template1', login),
        await connectRefused(
          env,
          "episode A's role connects to the maintenance database (postgres)",
          'postgres',
          login,
        ),
        await connectRefused(
          env,
          "episode A's role connects to the control database",
          env.config.postgres.database,
          login,
        ),
        await connectRefused(env, "episode A's role connects to its domain's template", template.name, login),
      ];
    }),
};

/** How main derived an episode's password before #14: from the superuser password (default `finalstate`) and the id. */
const oldDerivation = (superuserPassword: string, episodeId: string) =>
  createHash('sha256').update(`finalstate-episode:${superuserPassword}:${episodeId}`).digest('hex').slice(0, 40);

const credentials: SecurityProbe = {
  area: 'cross-episode',
  name: "derive or guess another episode's password",
  run: () =>
    withEpisodes('derive', async (env, _a, b) => {
      const results: ProbeResult[] = [];
      for (const [how, password] of [
        [
          'derived from the superuser password and its episode id',
          oldDerivation(superuserPassword(env.config), b.episodeId),
        ],
        ['derived from the default password `finalstate` and its episode id', oldDerivation('finalstate', b.episodeId)],
        ['guessed as `finalstate`', 'finalstate'],
      ] as const) {
        results.push(
          await connectRefused(env, `log in as episode B's role with a password ${how}`, b.database, {
            user: b.role,
            password,
          }),
        );
      }
      const keyFile = path.join(env.config.dataPath, 'secrets', 'episode-key');
      const mode = fs.existsSync(keyFile) ? fs.statSync(keyFile).mode & 0o777 : undefined;
      results.push({
        attempt: 'read the key episode passwords are derived from, as another local user',
        outcome:
          mode === undefined ? `no key file at ${shown(keyFile)}` : `${shown(keyFile)} has mode 0${mode.toString(8)}`,
        held: mode !== undefined && (mode & 0o077) === 0,
      });
      return results;
    }),
};

const catalog: SecurityProbe = {
  area: 'cross-episode',
  name: 'read other episodes from the catalog',
  run: () =>
    withEpisodes('catalog', async (env, a, b) => {
      const comments = await asEpisode<{ datname: string; comment: string | null }>(
        env,
        a,
        "SELECT datname, shobj_description(oid, 'pg_database') AS comment FROM pg_database",
      ).then(
        (res) => res.rows.filter((r) => r.comment),
        (err: Error) => err,
      );
      const leaked = Array.isArray(comments) ? comments.filter((r) => r.comment!.includes(b.episodeId)) : [];
      const terminate = await refused("episode A's role terminates episode B's sessions", async () => {
        await b.pool.query('SELECT 1'); // B holds an idle session
        const res = await asEpisode<{ ok: boolean }>(
          env,
          a,
          'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE usename = $1',
          [b.role],
        );
        if (!res.rows.some((r) => r.ok))
          throw new Error(`no session of ${b.role} was terminated (${res.rowCount} seen)`);
        return `terminated ${res.rows.filter((r) => r.ok).length} session(s) of ${b.role}`;
      });
      return [
        {
          attempt: "episode A's role reads every database's comment (episode ids, task ids)",
          outcome:
            comments instanceof Error
              ? `refused: ${comments.message}`
              : `read ${comments.length} comment(s), ${leaked.length} naming episode B`,
          held: comments instanceof Error || leaked.length === 0,
        },
        terminate,
      ];
    }),
};

/** Enough of a checkpoint for the write path: EpisodeCheckpoints.save validates nothing, load does. */
const minimalCheckpoint = (episodeId: string) => ({ episodeId, loop: { agentTurns: [] } }) as unknown as TurnCheckpoint;

const selfAlteration: SecurityProbe = {
  area: 'cross-episode',
  name: 'alter its own role, or another',
  run: () =>
    withEpisodes('alter', async (env, a, b) => {
      const results: ProbeResult[] = [];
      results.push(
        await refused("episode A's role changes episode B's password", async () => {
          await asEpisode(env, a, `ALTER ROLE ${ident(b.role)} PASSWORD 'taken-over'`);
          return `${b.role}'s password changed`;
        }),
      );
      results.push(
        await refused("episode A's role becomes the owner of the internal tables", async () => {
          await asEpisode(env, a, `SET ROLE ${ident(INTERNALS_OWNER_ROLE)}`);
          return `SET ROLE ${INTERNALS_OWNER_ROLE} succeeded`;
        }),
      );
      const mine = ident(a.role);
      const done: string[] = [];
      const session = await connectAs(env.config, a.database, loginOf(a));
      if (!session.client) throw new Error(session.error);
      for (const sql of [
        `ALTER ROLE ${mine} SET default_transaction_read_only = on`,
        `ALTER ROLE ${mine} SET search_path = ''`,
        `ALTER ROLE ${mine} IN DATABASE ${ident(a.database)} SET statement_timeout = 1`,
        `ALTER ROLE ${mine} PASSWORD 'chosen-by-the-episode'`,
      ]) {
        const got = await session.client.query(sql).then(
          () => 'ran',
          (err: Error) => `refused (${err.message})`,
        );
        done.push(`${sql.split(' ').slice(3).join(' ')}: ${got}`);
      }
      await session.client.end();
      // another process of the runtime reattaches and carries on: a tool call and a checkpoint
      const other = new EnvironmentBackend(env.config, env.registry, { sparesPerTemplate: 0 });
      try {
        const reattach = await (async () => {
          const again = await other.open(a.episodeId, a.task);
          try {
            if (!again.reattached) throw new Error('the episode database was rebuilt instead of reattached');
            const outcome = await new EpisodeToolExecutor(other, again).call(
              'cancel_order',
              { order_id: 'O-1', reason: 'customer_request' },
              { callIndex: 0 },
            );
            if (outcome.isError) throw new Error(`the tool call failed: ${outcome.message}`);
            const status = await again.pool.query<{ status: string }>(
              "SELECT status FROM orders WHERE order_id = 'O-1'",
            );
            if (status.rows[0]?.status !== 'cancelled')
              throw new Error(`the call's write is missing (status ${status.rows[0]?.status})`);
            await new EpisodeCheckpoints(again).save(minimalCheckpoint(a.episodeId));
            return 'reattached; the tool call and a checkpoint were written';
          } finally {
            await other.detach(again).catch(() => undefined);
          }
        })().then(
          (text) => ({ ok: true, text }),
          (err: Error) => ({ ok: false, text: err.message }),
        );
        results.push({
          attempt:
            "episode A's role changes its own password and defaults, then the runtime reattaches in another process",
          outcome: `${done.join('; ')}. Then: ${reattach.text}`,
          held: reattach.ok,
        });
      } finally {
        await other.close();
      }
      return results;
    }),
};

const internalTables: SecurityProbe = {
  area: 'cross-episode',
  name: "write the runtime's internal tables",
  run: () =>
    withEpisodes('internal', async (env, a) => {
      const executor = new EpisodeToolExecutor(env.backend, a);
      await executor.call('get_order', { order_id: 'O-1' }); // one genuine record, index 0
      const writes: [string, string][] = [
        [
          'forge a tool-call record for a later index',
          `INSERT INTO _finalstate_tool_calls (call_index, tool, arguments, result, is_error) VALUES (1, 'cancel_order', '{}', '"done"', false)`,
        ],
        [
          'rewrite the recorded result of call 0',
          `UPDATE _finalstate_tool_calls SET result = '"forged"' WHERE call_index = 0`,
        ],
        ['delete the tool-call records (so a resume runs them again)', 'DELETE FROM _finalstate_tool_calls'],
        ['forge a resume checkpoint', `INSERT INTO _finalstate_checkpoint (agent_turns, checkpoint) VALUES (7, '{}')`],
        ['move the id sequences', 'UPDATE _finalstate_sequences SET next_value = next_value + 100'],
        ['replace the episode marker', 'DELETE FROM _finalstate_episode'],
        ['read the recorder token hash', 'SELECT recorder_sha256 FROM _finalstate_episode'],
        [
          'record a call through the runtime function with a guessed token',
          `SELECT public._finalstate_record_call('guess', 1, 'cancel_order', '{}', '"done"', false, NULL)`,
        ],
        [
          'save a checkpoint through the runtime function with a guessed token',
          `SELECT public._finalstate_save_checkpoint('guess', 7, '{}')`,
        ],
      ];
      const results: ProbeResult[] = [];
      for (const [what, sql] of writes) {
        results.push(
          await refused(
            `episode A's role: ${what}`,
            async () => `${(await asEpisode(env, a, sql)).rowCount ?? 0} row(s)`,
          ),
        );
      }
      const after = await withClient(env.config, a.database, async (c) => ({
        calls: (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM _finalstate_tool_calls')).rows[0]!.n,
        checkpoints: (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM _finalstate_checkpoint')).rows[0]!.n,
      }));
      const lookup = await executor.lookup(0);
      results.push({
        attempt: "after those attempts, the runtime's records are what the runtime wrote",
        outcome: `${after.calls} tool-call record(s), ${after.checkpoints} checkpoint(s); call 0 is ${lookup?.tool ?? 'missing'}`,
        held: after.calls === 1 && after.checkpoints === 0 && lookup?.tool === 'get_order',
      });
      return results;
    }),
};

const provisioningWindow: SecurityProbe = {
  area: 'cross-episode',
  name: 'connect to a database while it is provisioned',
  run: () =>
    withEpisodes(
      'window',
      async (env, a) => {
        // hold provisioning between CREATE DATABASE and its grants: the role creation waits on a lock on pg_authid
        const blocker = new pg.Client(connectionConfig(env.config));
        await blocker.connect();
        const victimId = uniqueEpisodeId('window-victim');
        const victimDb = env.backend.names(victimId).database;
        let survivor: pg.Client | undefined;
        let during: string;
        let provisioning: Promise<Episode> | undefined;
        try {
          await blocker.query('BEGIN');
          await blocker.query('LOCK TABLE pg_catalog.pg_authid IN EXCLUSIVE MODE');
          provisioning = env.backend.provision(victimId, fixtureTask('cancel-O-1'));
          provisioning.catch(() => undefined);
          const deadline = Date.now() + 20_000;
          while (
            !(await env.backend.admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [victimDb])).rowCount
          ) {
            if (Date.now() > deadline) throw new Error(`${victimDb} never appeared`);
            await new Promise((r) => setTimeout(r, 20));
          }
          const got = await connectAs(env.config, victimDb, loginOf(a));
          survivor = got.client;
          during = got.error ? `refused: ${got.error}` : `connected to ${victimDb} before its grants`;
        } finally {
          await blocker.query('ROLLBACK').catch(() => undefined);
          await blocker.end();
        }
        const victim = await provisioning;
        try {
          let after = 'nothing to use';
          if (survivor) {
            after = await survivor.query("UPDATE orders SET status = 'shipped' WHERE order_id = 'O-1'").then(
              (res) => `after the grants, that connection still wrote ${res.rowCount} row(s) of the new episode`,
              (err: Error) => `after the grants, that connection was refused: ${err.message}`,
            );
            await survivor.end().catch(() => undefined);
          }
          const status = (
            await victim.pool.query<{ status: string }>("SELECT status FROM orders WHERE order_id = 'O-1'")
          ).rows[0]?.status;
          return [
            {
              attempt: "episode A's role connects to a new episode's database before its REVOKE/GRANT",
              outcome: `${during}; ${after}; the new episode's order O-1 is ${status}`,
              held: !survivor && status === 'placed',
            },
          ];
        } finally {
          await env.backend.teardown(victim, { wait: true });
        }
      },
      { sparesPerTemplate: 0 },
    ),
};

const serverLog: SecurityProbe = {
  area: 'cross-episode',
  name: 'find a password in the server log',
  run: async () => {
    const env = fixtureEnvironment({ sparesPerTemplate: 0 });
    try {
      if (!isManaged(env.config))
        return [
          {
            attempt: 'read passwords from the server log',
            outcome: "not run: a DATABASE_URL server, whose log is the operator's",
            held: false,
            skipped: true,
          },
        ];
      const logFile = path.join(env.config.dataPath, 'logs', 'postgres.log');
      const id = uniqueEpisodeId('log');
      const task = fixtureTask('cancel-O-1');
      // the role-reuse path: the role outlived its database (a teardown stopped between the two drops)
      const first = await env.backend.provision(id, task);
      const { password } = loginOf(first);
      await env.backend.detach(first);
      await env.backend.admin.query(`DROP DATABASE ${ident(first.database)} WITH (FORCE)`);
      const again = await env.backend.provision(id, task);
      await env.backend.teardown(again, { wait: true });
      const text = fs.readFileSync(logFile, 'utf8');
      const mode = fs.statSync(logFile).mode & 0o777;
      const secrets = [password, loginOf(again).password];
      return [
        {
          attempt: "read an episode role's password from the server log after provisioning reused its role",
          outcome: secrets.some((s) => text.includes(s))
            ? `the password is in ${shown(logFile)}`
            : `no episode password in ${shown(logFile)}`,
          held: !secrets.some((s) => text.includes(s)),
        },
        {
          attempt: 'read the server log as another local user',
          outcome: `${shown(logFile)} has mode 0${mode.toString(8)}`,
          held: (mode & 0o077) === 0,
        },
      ];
    } finally {
      await env.close();
    }
  },
};

const probes: SecurityProbe[] = [
  connect,
  credentials,
  catalog,
  selfAlteration,
  internalTables,
  provisioningWindow,
  serverLog,
];
export default probes;

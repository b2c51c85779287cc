/**
 * Another user of the machine against the local cluster: a real second OS account (created for the probe, removed
 * after) tries to log in every way the cluster could let it, and to read the secrets that would let it in.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { superuserPasswordFile } from '../../../environment/superuser-password.js';
import { isManaged, serverBinary } from '../../../infra/stack/postgres.js';
import { projectRoot } from '../../../core/paths.js';
import { fixtureEnvironment, fixtureTask, uniqueEpisodeId } from '../../environment/harness.js';
import type { ProbeResult, SecurityProbe } from '../probe.js';

const shown = (file: string) => path.relative(projectRoot, file);

/** Run a program as `user`, from `/`, with a bare environment (no PGPASSWORD, no PGPASSFILE of ours). */
function runAs(user: string, command: string, args: string[]) {
  const res = spawnSync('runuser', ['-u', user, '--', command, ...args], {
    cwd: '/',
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PGCONNECT_TIMEOUT: '5' },
    timeout: 30_000,
  });
  return { status: res.status ?? -1, out: `${res.stdout ?? ''}${res.stderr ?? ''}`.trim().replace(/\s+/g, ' ') };
}

/** A throwaway OS account, or why we cannot make one (not root). */
function createUser(): { name: string } | { skipped: string } {
  if (process.getuid?.() !== 0)
    return { skipped: 'not run: making a second OS user takes root (CI runs as root); run `npm run security` as root' };
  const name = `fsprobe${randomBytes(3).toString('hex')}`;
  const res = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name], {
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`useradd ${name} failed: ${res.stderr}`);
  return { name };
}

const otherUser: SecurityProbe = {
  area: 'local-users',
  name: 'another OS user against the local cluster',
  run: async () => {
    const env = fixtureEnvironment({ sparesPerTemplate: 0 });
    try {
      const { config } = env;
      if (!isManaged(config))
        return [
          {
            attempt: 'another OS user logs in',
            outcome: "not run: a DATABASE_URL server, whose access is the operator's",
            held: false,
            skipped: true,
          },
        ];
      const made = createUser();
      if ('skipped' in made)
        return [
          {
            attempt: 'another OS user logs in to the local cluster',
            outcome: made.skipped,
            held: false,
            skipped: true,
          },
        ];
      const user = made.name;
      const episode = await env.backend.provision(uniqueEpisodeId('local-user'), fixtureTask('cancel-O-1'));
      try {
        const { host, port, user: superuser, database } = config.postgres;
        const psql = serverBinary('psql');
        const login = (attempt: string, conninfo: string): ProbeResult => {
          // -w: never prompt; what the server (or the socket's directory) answers is the outcome
          const got = runAs(user, psql, [
            '-X',
            '-w',
            '-At',
            '-d',
            conninfo,
            '-c',
            "SELECT current_user || (CASE WHEN rolsuper THEN ' (superuser)' ELSE '' END) FROM pg_roles WHERE rolname = current_user",
          ]);
          return {
            attempt: `another OS user (${user}) ${attempt}`,
            outcome: got.status === 0 ? `logged in as ${got.out}` : `refused: ${got.out}`,
            held: got.status !== 0,
          };
        };
        const tcp = `host=${host} port=${port} dbname=${database}`;
        const socketDir = path.join(config.dataPath, 'pg');
        const results = [
          login(
            `logs in as the superuser ${superuser} with the old default password`,
            `${tcp} user=${superuser} password=finalstate`,
          ),
          login(`logs in as the superuser with no password`, `${tcp} user=${superuser}`),
          login('logs in as the role postgres with no password', `${tcp} user=postgres`),
          login(
            'logs in as the superuser through the unix socket',
            `host=${socketDir} port=${port} dbname=${database} user=${superuser} password=finalstate`,
          ),
          login(
            `logs in as a live episode's role (${episode.role}) with a guessed password`,
            `host=${host} port=${port} dbname=${episode.database} user=${episode.role} password=finalstate`,
          ),
        ];
        for (const [what, file] of [
          ['the superuser password file', superuserPasswordFile(config.dataPath)],
          ['the episode key', path.join(config.dataPath, 'secrets', 'episode-key')],
        ] as const) {
          const read = runAs(user, 'cat', [file]);
          results.push({
            attempt: `another OS user (${user}) reads ${what} ${shown(file)}`,
            outcome: !fs.existsSync(file)
              ? `there is no such file (the password is the configured or default one)`
              : read.status === 0
                ? `read ${read.out.length} characters`
                : `refused: ${read.out}`,
            held: fs.existsSync(file) && read.status !== 0,
          });
        }
        return results;
      } finally {
        await env.backend.teardown(episode, { wait: true }).catch(() => undefined);
        spawnSync('userdel', [user]);
      }
    } finally {
      await env.close();
    }
  },
};

const probes: SecurityProbe[] = [otherUser];
export default probes;

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';
import { postgresUnreachable } from '../../cli/postgres-unreachable.js';
import { InfrastructureError } from '../../core/errors.js';
import { loadConfig } from '../../workers/config.js';
import { freePort, inBatches, runCliAsync, type CliResult } from '../helpers/index.js';

// Finding 14 of issue 25: whatever is wrong with DATABASE_URL (nothing listening, a wrong password, a host name that
// does not resolve, not a URL at all), every command that reaches PostgreSQL says so in one line that names the
// address, never the password, and exits 2; none prints pg's stack trace. The real `finalstate` binary: one command
// of each way the CLI reaches PostgreSQL under all four, the other such commands under one each; dev status reports
// the server down (exit 1, its contract); campaign and report reach Temporal first, PostgreSQL never on these paths.
// (eval and campaign start only start workflows: their workers reach PostgreSQL, not the command.)
const config = loadConfig();
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
const live = config.postgres.url
  ? new URL(config.postgres.url)
  : new URL(`postgres://${config.postgres.user}@${config.postgres.host}:${config.postgres.port}/`);
const user = decodeURIComponent(live.username) || config.postgres.user;
const task = 'retail.train.mini.cancel_order.561961';

interface Case {
  name: string;
  url: string;
  port?: number;
  /** What the line says: the address (or that the URL is malformed) and the reason. */
  says: RegExp[];
}

async function cases(): Promise<Case[]> {
  const dead = await freePort();
  return [
    {
      name: 'nothing listening',
      port: dead,
      url: `postgres://${user}:${PASSWORD}@127.0.0.1:${dead}/finalstate`,
      says: [new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${dead} `), /ECONNREFUSED.*is the server running/],
    },
    {
      name: 'wrong password',
      url: `postgres://${user}:${PASSWORD}@${live.hostname}:${live.port || 5432}/finalstate`,
      says: [
        new RegExp(`PostgreSQL at ${live.hostname.replace(/\./g, '\\.')}:${live.port || 5432} `),
        new RegExp(`refused the credentials of user "${user}".*check the user and password in DATABASE_URL`),
      ],
    },
    {
      name: 'unresolvable host',
      url: `postgres://${user}:${PASSWORD}@no-such-host.invalid:5432/finalstate`,
      says: [
        /PostgreSQL at no-such-host\.invalid:5432 /,
        /"no-such-host\.invalid" (does not resolve|could not be looked up)/,
      ],
    },
    {
      name: 'not a URL',
      url: `postgres//${user}:${PASSWORD}@127.0.0.1:5432/finalstate`,
      says: [
        /^config: postgres\.url: not a PostgreSQL URL: expected postgres:\/\/USER:PASSWORD@HOST:PORT\/DATABASE \(from env DATABASE_URL\)$/,
      ],
    },
  ];
}

const cli = (args: string[], databaseUrl: string) => runCliAsync(args, { DATABASE_URL: databaseUrl });

/** One line naming the address and the reason, exit 2, and never the password. */
function assertOneLine(res: CliResult, c: Case, args: string[]): void {
  const what = `finalstate ${args.join(' ')} (${c.name}):\n${res.stderr}`;
  assert.equal(res.status, 2, what);
  const lines = res.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, no stack trace: ${what}`);
  for (const says of c.says) assert.match(lines[0]!, says, what);
  assert.ok(!`${res.stdout}${res.stderr}`.includes(PASSWORD), `the password never appears: ${what}`);
}

/** One command of each way the CLI reaches PostgreSQL. */
const classes: string[][] = [
  ['run', '--task', task, '--policy', 'oracle'], // the episode runtime (model pass-rate, model build-base, demo's fleet)
  ['episode', 'list'], // the control pool (episode show, report's episode pages, demo's summary)
  ['tasks', 'janitor'], // the environment backend (tasks verify, validate, serve-mcp)
  ['dev', 'up'], // the stack (demo's first step)
];

test('each way a command reaches PostgreSQL gives one line naming the address and exit 2, whatever is wrong with DATABASE_URL', async () => {
  const runs = (await cases()).flatMap((c) => classes.map((args) => ({ c, args })));
  const results = await inBatches(runs, 4, ({ c, args }) => cli(args, c.url));
  for (const [i, res] of results.entries()) assertOneLine(res, runs[i]!.c, runs[i]!.args);
});

test('so do the other commands that reach PostgreSQL, each under one of the cases', async () => {
  const [dead, password, unresolvable] = (await cases()) as [Case, Case, Case, Case];
  const runs = [
    { c: password, args: ['episode', 'show', 'some/episode'] },
    { c: unresolvable, args: ['model', 'pass-rate', '--policy', 'http://127.0.0.1:9', '--model', 'm'] },
    { c: dead, args: ['tasks', 'serve-mcp', '--task', task, '--transport', 'stdio'] },
    { c: password, args: ['demo', '--preset', 'smoke'] },
  ];
  const results = await inBatches(runs, 4, ({ c, args }) => cli(args, c.url));
  for (const [i, res] of results.entries()) assertOneLine(res, runs[i]!.c, runs[i]!.args);
});

test('dev status reports the server down at its address; campaign and report reach Temporal first and are unaffected', async () => {
  const [dead, , , malformed] = (await cases()) as [Case, Case, Case, Case];
  const runs = [
    { c: dead, args: ['dev', 'status'] },
    { c: malformed, args: ['dev', 'status'] },
    { c: dead, args: ['campaign', 'status', 'no-such-campaign'] },
    { c: dead, args: ['report', 'no-such-campaign'] },
  ];
  const results = await inBatches(runs, 4, ({ c, args }) => cli(args, c.url));
  for (const [i, res] of results.entries()) {
    const { c, args } = runs[i]!;
    const what = `finalstate ${args.join(' ')} (${c.name}):\n${res.stdout}${res.stderr}`;
    if (c === malformed) {
      assertOneLine(res, c, args);
      continue;
    }
    assert.ok(!`${res.stdout}${res.stderr}`.includes(PASSWORD), `the password never appears: ${what}`);
    assert.doesNotMatch(res.stderr, /^\s+at /m, `no stack trace: ${what}`);
    if (args[0] === 'dev') {
      assert.equal(res.status, 1, what);
      assert.match(
        res.stdout,
        new RegExp(`^DOWN postgres +postgres://127\\.0\\.0\\.1:${dead.port}/finalstate$`, 'm'),
        what,
      );
    } else {
      assert.equal(res.status, 2, what);
      assert.match(res.stderr, /no campaign "no-such-campaign"/, what);
    }
  }
});

test('only a failure to reach the configured server is reported as such: another service refusing is not', async () => {
  const [a, b] = [await freePort(), await freePort()];
  const refusal = await new pg.Client({ host: '127.0.0.1', port: a, user: 'u', password: PASSWORD, database: 'd' })
    .connect()
    .then(
      () => assert.fail('nothing listens there'),
      (err: unknown) => err,
    );
  const wrapped = new InfrastructureError(`postgres: admin connection: ${(refusal as Error).message}`, 'postgres', {
    cause: refusal,
  });
  const at = (port: number) => loadConfig({ env: { DATABASE_URL: `postgres://u:${PASSWORD}@127.0.0.1:${port}/d` } });
  assert.match(
    postgresUnreachable(wrapped, at(a)) ?? '',
    new RegExp(`^finalstate: PostgreSQL at 127\\.0\\.0\\.1:${a} .*ECONNREFUSED`),
  );
  assert.equal(postgresUnreachable(wrapped, at(b)), undefined, 'a refusal on another port is not the server');
  const policyServer = await fetch(`http://127.0.0.1:${b}/v1/models`).then(
    () => assert.fail('nothing listens there'),
    (err: unknown) => err,
  );
  assert.equal(postgresUnreachable(policyServer, at(a)), undefined, 'a policy server that refuses is not PostgreSQL');
  assert.equal(postgresUnreachable(new Error('boom'), at(a)), undefined);
});

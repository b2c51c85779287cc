import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import readline from 'node:readline';
import type { Duplex } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { InfrastructureError, UserError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { OpenEnvBridge, OpenEnvRefused } from '../../environment/openenv/bridge.js';
import { importOpenEnv } from '../../environment/openenv/import.js';
import { StaleAttemptError } from '../../environment/pg-faults.js';
import { readTaskSet, writeTaskSet } from '../../environment/task-set.js';
import { OpenEnvEnvironment, openEnvEpisodeId } from '../../runtime/episode/environments/openenv.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import type { EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import type { OpenEnvTaskPartInput } from '../../schemas/openenv-task.js';
import { Task, type TaskInput, type ToolCall } from '../../schemas/task.js';
import { loadConfig } from '../../workers/config.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { freePort, runCliAsync, uniqueName } from '../helpers/index.js';
import { LedgerServer } from '../helpers/openenv.js';

// finalstate's episodes on an OpenEnv environment of the tests' own (test/fixtures/openenv/ledger_env.py: OpenEnv's
// MCPEnvironment and create_app, a reward from its final state), through OpenEnv's own client (the bridge), with the
// worker's own wiring (workers/episode-runtime.ts): rewards from the terminal step, the failures that are
// infrastructure (never a 0), a hung session that holds up no other, and a retried attempt that starts over; then
// finalstate's own `env serve --openenv` consumed back, and handshakes refused by a fake server.
const config = loadConfig();
let server: LedgerServer;
let runtime: EpisodeRuntime;
let manifest: string;
let closedPort: number;
/** Answers every WebSocket handshake with an HTTP status: /busy 503; /auth 401, or 503 to `Bearer sekrit`. */
let fake: http.Server;
let fakeUrl: string;
/** `finalstate env serve --openenv` on the retail pack's mini eval tasks: its JSON line once it serves. */
let serve: ChildProcess;
let served: Promise<{ url: string; tokenFile: string }>;
const TOKEN_ENV = 'FINALSTATE_TEST_OPENENV_TOKEN';
const stored: string[] = [];

function task(id: string, part: Omit<OpenEnvTaskPartInput, 'url'> & { url?: string }): TaskInput {
  return {
    id,
    domain: 'ledger',
    split: 'train',
    profile: 'full',
    query: '(from the reset)',
    userContext: '',
    now: '2025-01-01T00:00:00Z',
    golden: [],
    openenv: { url: server.url, ...part },
  };
}

function request(taskId: string, calls: ToolCall[], episodeId = uniqueName('oe')): EpisodeRequest {
  stored.push(episodeId);
  return EpisodeRequest.parse({
    episodeId,
    taskId,
    taskSet: manifest,
    trial: 0,
    policy: { kind: 'oracle', calls },
    seed: 0,
  });
}

const transfer = (source: string, target: string, amount: number): ToolCall => ({
  tool: 'transfer',
  arguments: { source, target, amount },
});

before(async () => {
  serve = spawn(
    process.execPath,
    [fromRoot('bin', 'finalstate.js'), 'env', 'serve', '--openenv', '--domain', 'retail', '--split', 'eval'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  served = new Promise((resolve, reject) => {
    readline
      .createInterface({ input: serve.stdout! })
      .once('line', (line) => resolve(JSON.parse(line) as { url: string; tokenFile: string }));
    serve.once('exit', (code) => reject(new Error(`env serve exited with ${code}`)));
  });
  served.catch(() => undefined);
  fake = http.createServer((_, res) => res.writeHead(404).end());
  fake.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    const status = !req.url!.startsWith('/auth')
      ? '503 Service Unavailable'
      : req.headers.authorization === 'Bearer sekrit'
        ? '503 Service Unavailable'
        : '401 Unauthorized';
    socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
  server = new LedgerServer(await freePort());
  closedPort = await freePort();
  await server.start({ holdMatch: 'hold-me' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-openenv-'));
  const written = writeTaskSet(dir, 'ledger', '1', [
    task('ledger:move', { reset: { task_id: 'ledger-0' } }),
    task('ledger:nothing', { reset: { task_id: 'ledger-2' } }),
    task('ledger:no-reward', { reset: { task_id: 'ledger-no-reward' } }),
    task('ledger:refused', { url: `http://127.0.0.1:${closedPort}`, reset: { task_id: 'ledger-0' } }),
    task('ledger:slow', { reset: { task_id: 'ledger-1' }, stepTimeoutSeconds: 6 }),
    task('ledger:tools-only', { reset: { task_id: 'ledger-3' }, messages: 'final' }),
    task('fake:busy', { url: `${fakeUrl}/busy` }),
    task('fake:auth', { url: `${fakeUrl}/auth` }),
    task('fake:token', { url: `${fakeUrl}/auth`, token: { from: 'env', name: TOKEN_ENV } }),
  ]);
  manifest = written.manifestFile;
  runtime = await createEpisodeRuntime(config);
});

after(async () => {
  serve?.kill('SIGTERM');
  fake?.close();
  await runtime?.control.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [stored]);
  await runtime?.close();
  await server?.kill();
});

test('the terminal step is the reward: the right transfer 1, none 0, nothing asked and nothing done 1', async () => {
  const store = new EpisodeStore(runtime.control);
  const right = await runtime.runner.run(request('ledger:move', [transfer('alice', 'bob', 30)]));
  const none = await runtime.runner.run(request('ledger:move', []));
  const nothing = await runtime.runner.run(request('ledger:nothing', []));
  const wrong = await runtime.runner.run(request('ledger:move', [transfer('alice', 'carol', 30)]));
  assert.deepEqual(
    [right, none, nothing, wrong].map((o) => o.reward),
    [1, 0, 1, 0],
  );
  // the server's own verdicts, for the same episodes (the reset's episode_id names finalstate's episode)
  for (const outcome of [right, none, nothing, wrong]) {
    const done = await server.next(
      (e) => e.event === 'done' && e.episode_id === openEnvEpisodeId(outcome.episodeId, undefined),
    );
    assert.equal(done.reward, outcome.reward);
  }
  const record = (await store.load(right.episodeId))!;
  assert.equal(record.transcript.turns[0]!.content, 'Please move 30 from alice to bob.', "the reset's first message");
  assert.deepEqual(
    record.transcript.tools.map((t) => t.name),
    ['list_accounts', 'get_balance', 'transfer'],
    "the environment's MCP tools",
  );
  assert.deepEqual(JSON.parse(record.toolCalls[0]!.result), { alice: 70, bob: 80, carol: 20 });
  assert.equal(record.outcome.finishReason, 'user_done', "the environment's user ended it on the second message");
  assert.match(record.grade.assertions[0]!.description, /^OpenEnv reward 1 from http:\/\/127\.0\.0\.1:\d+/);
  // a tool's own error is the agent's to read, and the episode goes on
  const badArgs = await runtime.runner.run(request('ledger:move', [transfer('alice', 'nobody', 30)]));
  const failed = (await store.load(badArgs.episodeId))!.toolCalls[0]!;
  assert.equal(failed.isError, true);
  assert.match(failed.result, /no account nobody/);
  assert.equal(badArgs.reward, 0);
});

test('a tools-only environment: the first plain message ends the conversation; never done is a 0', async () => {
  const outcome = await runtime.runner.run(request('ledger:tools-only', [transfer('carol', 'alice', 5)]));
  assert.equal(outcome.finishReason, 'agent_done');
  assert.equal(outcome.reward, 0, 'the agent ended without a terminal step: not finished');
  const record = (await new EpisodeStore(runtime.control).load(outcome.episodeId))!;
  assert.match(record.grade.assertions[0]!.description, /no step was done/);
});

test('connection refused and a terminal step without a reward are InfrastructureErrors, never a 0', async () => {
  const store = new EpisodeStore(runtime.control);
  const refused = request('ledger:refused', []);
  await assert.rejects(runtime.runner.run(refused, { attempt: 1 }), (err: Error) => {
    assert.ok(err instanceof InfrastructureError, `${err.name}: ${err.message}`);
    assert.equal(err.component, 'openenv-unreachable');
    assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${closedPort}.*ConnectionRefusedError`));
    return true;
  });
  const noReward = request('ledger:no-reward', [transfer('alice', 'bob', 1)]);
  await assert.rejects(runtime.runner.run(noReward, { attempt: 1 }), (err: Error) => {
    assert.ok(err instanceof InfrastructureError, `${err.name}: ${err.message}`);
    assert.equal(err.component, 'openenv-no-reward');
    assert.match(err.message, /came back done\) without a reward/);
    return true;
  });
  assert.equal(await store.load(refused.episodeId), undefined, 'nothing stored for the outage');
  assert.equal(await store.load(noReward.episodeId), undefined, 'nothing stored for the missing reward');
});

test('a hung session holds up no other; it fails as infrastructure at its step timeout', async () => {
  const hung = request('ledger:slow', [transfer('bob', 'carol', 10)], uniqueName('oe-hold-me'));
  const order: string[] = [];
  const hanging = runtime.runner.run(hung, { attempt: 1 }).then(
    () => order.push('hung: scored'),
    (err: Error) => {
      order.push(`hung: ${err.name} ${(err as InfrastructureError).component}`);
    },
  );
  await server.next((e) => e.event === 'hold');
  // while it hangs (6 s of step timeout), another episode is played through to its reward
  const other = await runtime.runner.run(request('ledger:move', [transfer('alice', 'bob', 30)]));
  order.push(`other: reward ${other.reward}`);
  await hanging;
  assert.deepEqual(order, ['other: reward 1', 'hung: InfrastructureError openenv-timeout']);
  assert.equal(await new EpisodeStore(runtime.control).load(hung.episodeId), undefined);
});

test('a retried attempt starts over in a fresh session; the attempt it took over can store nothing', async () => {
  const environment = runtime.environments.find((e) => e instanceof OpenEnvEnvironment)!;
  const retried = request('ledger:move', [transfer('alice', 'bob', 30)]);
  const parsed = Task.parse(task('ledger:move', { reset: { task_id: 'ledger-0' } }));
  const first = await environment.open(retried.episodeId, parsed, { attempt: 1 });
  const tools = await first.connectTools();
  await tools.callTool('transfer', { source: 'alice', target: 'bob', amount: 99 }); // the first attempt's wrong effect
  const outcome = await runtime.runner.run(retried, { attempt: 2 });
  assert.equal(outcome.reward, 1, "the retry's own session, never the first's state");
  await assert.rejects(
    first.underLease(async () => undefined),
    (err: Error) => err instanceof StaleAttemptError,
  );
  await first.teardown();
  const resets = server.events.filter(
    (e) => e.event === 'reset' && e.episode_id.startsWith(openEnvEpisodeId(retried.episodeId, undefined)),
  );
  assert.deepEqual(
    resets.map((e) => e.episode_id.split(':').at(-1)),
    ['a1', 'a2'],
    'a fresh reset per attempt',
  );
});

test('bad input is a clear error naming what and where', async () => {
  const parsed = Task.safeParse(task('ledger:bad', { url: 'ftp://example.com', reset: {} }));
  assert.equal(parsed.success, false);
  assert.deepEqual(parsed.error!.issues[0]!.path, ['openenv', 'url']);
  const submit = Task.safeParse(task('ledger:submit', { submit: { tool: 'answer', argument: 'text' } }));
  assert.deepEqual(
    submit.error?.issues.map((i) => [i.path.join('.'), i.message]),
    [['openenv.submit', 'submit applies to messages "final" only']],
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-openenv-import-'));
  const bridge = new OpenEnvBridge();
  try {
    await assert.rejects(
      importOpenEnv({
        part: { url: `http://127.0.0.1:${closedPort}` },
        draw: { taskIds: ['ledger-0'] },
        domain: 'ledger',
        split: 'train',
        out: { dir, name: 'ledger' },
        bridge,
      }),
      (err: Error) =>
        err instanceof UserError &&
        err.message.includes(`http://127.0.0.1:${closedPort} (reset {"task_id":"ledger-0"})`) &&
        /ConnectionRefusedError/.test(err.message),
    );
    const report = await importOpenEnv({
      part: { url: server.url },
      draw: { seeds: 5, from: 0 },
      domain: 'ledger',
      split: 'eval',
      out: { dir, name: 'ledger' },
      bridge,
    });
    assert.equal(report.tasks, 5);
    assert.deepEqual(report.sameTask, [['ledger:seed-0', 'ledger:seed-4']], 'seeds 0 and 4 draw the same ledger task');
    // `tasks verify` has no oracle for a task its server grades: it refuses the set by name, never skips it silently
    const verify = await runCliAsync(['tasks', 'verify', '--dir', dir]);
    assert.equal(verify.status, 2, verify.stderr);
    assert.match(
      verify.stderr,
      new RegExp(`${dir}/\\S+\\.jsonl \\(5 OpenEnv tasks\\): an OpenEnv task is graded by its own server`),
    );
  } finally {
    await bridge.close();
  }
});

test('a 5xx handshake is infrastructure; a 4xx one, or a token that is not there, is a clear error', async () => {
  const play = (taskId: string) => runtime.runner.run(request(taskId, []), { attempt: 1 });
  await assert.rejects(play('fake:busy'), (err: Error) => {
    assert.ok(err instanceof InfrastructureError, `${err.name}: ${err.message}`);
    assert.equal(err.component, 'openenv-unreachable');
    assert.match(err.message, /HTTP 503/);
    return true;
  });
  await assert.rejects(play('fake:auth'), (err: Error) => {
    assert.ok(err instanceof OpenEnvRefused, `${err.name}: ${err.message}`);
    assert.match(err.message, new RegExp(`${fakeUrl}/auth: the WebSocket handshake was answered HTTP 401`));
    return true;
  });
  delete process.env[TOKEN_ENV];
  await assert.rejects(
    play('fake:token'),
    (err: Error) => err instanceof UserError && err.message.includes(`environment variable ${TOKEN_ENV}`),
  );
  process.env[TOKEN_ENV] = 'sekrit';
  try {
    // the token reaches the server as `Authorization: Bearer …` (which answers it 503 instead of 401)
    await assert.rejects(
      play('fake:token'),
      (err: Error) => err instanceof InfrastructureError && /HTTP 503/.test(err.message),
    );
  } finally {
    delete process.env[TOKEN_ENV];
  }
});

test("finalstate's own env serve --openenv, consumed back: the golden calls earn 1, none 0, its diff kept", async () => {
  const { url, tokenFile } = await served;
  const native = readTaskSet(fromRoot('tasks', 'retail', 'retail-eval-mini.jsonl')).tasks[0]!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-openenv-served-'));
  const set = writeTaskSet(dir, 'served', '1', [
    task(`served:${native.id}`, { url, reset: { task_id: native.id }, token: { from: 'file', path: tokenFile } }),
  ]);
  const play = (calls: ToolCall[]) =>
    runtime.runner.run({ ...request(`served:${native.id}`, calls), taskSet: set.manifestFile });
  const golden = await play(native.golden);
  const none = await play([]);
  assert.deepEqual([golden.reward, none.reward], [1, 0]);
  const record = (await new EpisodeStore(runtime.control).load(none.episodeId))!;
  assert.equal(record.transcript.turns[0]!.content, native.query, "the served task's first message");
  assert.ok(record.grade.diff.length > 0, 'the diff the served environment reported');
  assert.match(record.grade.assertions[0]!.error ?? '', /reward 0/, 'its summary line');
});

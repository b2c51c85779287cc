import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type pg from 'pg';
import { fromRoot } from '../../core/paths.js';
import { loadConfig } from '../../workers/config.js';
import { EnvironmentBackend, type BackendOptions } from '../../environment/backend.js';
import { ExpectedStates } from '../../environment/expected-state.js';
import { DomainRegistry } from '../../environment/registry.js';
import { writeTaskSet } from '../../environment/task-set.js';
import { Task } from '../../schemas/task.js';
import { fixtureHelpdeskDomain } from '../fixtures/fixture-helpdesk-domain.js';

/** A backend over the real local PostgreSQL with the test-fixture domain registered, plus a private cache dir. */
export function fixtureEnvironment(options: BackendOptions = {}, config = loadConfig()) {
  const registry = new DomainRegistry([fixtureHelpdeskDomain]);
  const backend = new EnvironmentBackend(config, registry, options);
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-expected-'));
  const expected = new ExpectedStates(backend, cacheDir);
  return {
    config,
    registry,
    backend,
    expected,
    cacheDir,
    async close() {
      await backend.close();
      fs.rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

export function fixtureTasks(split: 'train' | 'eval' = 'train', profile: 'full' | 'mini' = 'full'): Task[] {
  return fixtureHelpdeskDomain.generateTasks({ seed: 1, split, profile, count: 100 }).map((t) => Task.parse(t));
}

export function fixtureTask(suffix: string, profile: 'full' | 'mini' = 'full'): Task {
  const task = fixtureTasks('train', profile).find((t) => t.id.endsWith(suffix));
  if (!task) throw new Error(`no fixture task ending in ${suffix}`);
  return task;
}

/** Unique per test run, so parallel runs on the shared cluster never collide. */
export const uniqueEpisodeId = (label: string) => `test-${label}-${randomUUID()}`;

/** The compiled fixture pack, loadable by a `finalstate` subprocess through FINALSTATE_DOMAIN_MODULES. */
export const fixtureModule = fromRoot('dist', 'test', 'fixtures', 'fixture-helpdesk-domain.js');

/** Run the real CLI in a subprocess with the fixture pack registered. */
export function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [fromRoot('bin', 'finalstate.js'), ...args],
      { env: { ...process.env, FINALSTATE_DOMAIN_MODULES: fixtureModule }, maxBuffer: 1 << 24 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

export interface ServedMcp {
  child: ChildProcess;
  url: string;
  tokenFile: string;
  database: string;
  /** SIGTERM, then wait for the exit (SIGKILL if it does not come). */
  stop(): Promise<void>;
}

/** `finalstate tasks serve-mcp --transport http` in a subprocess, once it has printed its address line. */
export async function spawnServeMcp(args: string[]): Promise<ServedMcp> {
  const child = spawn(
    process.execPath,
    [fromRoot('bin', 'finalstate.js'), 'tasks', 'serve-mcp', '--transport', 'http', ...args],
    {
      env: { ...process.env, FINALSTATE_DOMAIN_MODULES: fixtureModule },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    while (!out.includes('\n')) {
      const [chunk] = (await Promise.race([
        once(child.stdout!, 'data'),
        once(child, 'exit').then(() => Promise.reject(new Error(`serve-mcp exited early: ${err}`))),
      ])) as [string];
      out += chunk;
    }
  } catch (e) {
    await stop();
    throw e;
  }
  const line = JSON.parse(out.split('\n')[0]!) as { url: string; tokenFile: string; database: string };
  return { child, ...line, stop };
}

/**
 * `finalstate tasks serve-mcp --transport http` serving the fixture task cancel-O-1 from a task set of its own (with
 * `args`), for `fn`, which gets the server and its bearer token; stopped and cleaned up afterwards.
 */
export async function withServedFixtureTask<T>(
  args: string[],
  fn: (served: ServedMcp, token: string) => Promise<T>,
): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-served-task-'));
  const task = fixtureTask('cancel-O-1');
  writeTaskSet(dir, 'fixture', '1', [task]);
  const served = await spawnServeMcp([
    '--task',
    task.id,
    '--dir',
    dir,
    '--episode',
    uniqueEpisodeId('served-task'),
    ...args,
  ]);
  try {
    return await fn(served, fs.readFileSync(served.tokenFile, 'utf8').trim());
  } finally {
    await served.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly the headers given (Host included), as a hostile local client would send it. */
export function rawHttp(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request(
      url,
      {
        method: options.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** "HTTP <status>: <message>", the message the JSON error answer carries, else the start of the body as it came. */
export function answerOf(res: RawResponse): string {
  let message = res.body.slice(0, 200);
  try {
    message = (JSON.parse(res.body) as { error?: { message?: string } }).error?.message ?? message;
  } catch {
    // an event stream or plain text: shown as it came
  }
  return `HTTP ${res.status}: ${message}`;
}

/** The JSON-RPC messages a client sends: initialize, and a tool call. */
export const mcpInitialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};
export const mcpToolCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name, arguments: args },
});

/**
 * What a DNS-rebinding page can do: initialize a session with the given headers, then call cancel_order on O-1.
 * Returns the two HTTP statuses; the caller checks the order in the database.
 */
export async function rebindingCancel(
  url: string,
  headers: Record<string, string>,
): Promise<{ initialize: number; call: number }> {
  const init = await rawHttp(url, { headers, body: mcpInitialize });
  const sessionId = init.headers['mcp-session-id'];
  const session = sessionId
    ? { ...headers, 'mcp-session-id': String(sessionId), 'mcp-protocol-version': '2025-06-18' }
    : headers;
  if (sessionId)
    await rawHttp(url, { headers: session, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  const call = await rawHttp(url, {
    headers: session,
    body: mcpToolCall('cancel_order', { order_id: 'O-1', reason: 'customer_request' }),
  });
  return { initialize: init.status, call: call.status };
}

/** A valid one-task set in `dir` with `tasks` appended as lines 2, 3, … (so they are also missing from its manifest). */
export function taskSetWithLines(dir: string, name: string, tasks: object[]): string {
  const { file } = writeTaskSet(dir, name, '1', [fixtureTask('cancel-O-1')]);
  fs.appendFileSync(file, tasks.map((t) => `${JSON.stringify(t)}\n`).join(''));
  return file;
}

/** An assertion that tries to end its read-only transaction and write. */
export const escapingAssertion = {
  description: 'escapes',
  sql: "COMMIT; UPDATE orders SET total = 999 WHERE order_id = 'O-1'",
  expect: [],
};

/** An empty task set as a hand-edited one would be: a JSONL file of blank lines and a manifest listing no task. */
export function writeEmptyTaskSet(dir: string, name: string): string {
  const file = path.join(dir, `${name}.jsonl`);
  fs.writeFileSync(file, '\n\n');
  fs.writeFileSync(
    file.replace(/\.jsonl$/, '.manifest.json'),
    JSON.stringify({ name, version: '1', file: path.basename(file), tasks: [] }),
  );
  return file;
}

/**
 * Cancels, with pg_cancel_backend (SQLSTATE 57014, as an operator or the server would), the first statement running on
 * `database` whose text contains `marker`; resolves true once one was cancelled, false after `timeoutMs`.
 */
export async function cancelWhenRunning(
  admin: pg.Pool,
  database: string,
  marker: string,
  timeoutMs = 20_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await admin.query<{ sent: boolean }>(
      `SELECT pg_cancel_backend(pid) AS sent FROM pg_stat_activity
       WHERE datname = $1 AND state = 'active' AND strpos(query, $2) > 0 AND pid <> pg_backend_pid()`,
      [database, marker],
    );
    if (res.rows.some((r) => r.sent)) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../../workers/config.js';
import { withClient } from '../../infra/stack/postgres.js';
import type { Episode } from '../../environment/backend.js';
import { EpisodeMcpClient } from '../../environment/mcp-client.js';
import { serveHttp, writeTokenFile, type HttpMcpEndpoint } from '../../environment/mcp-http.js';
import { createEpisodeMcpServer } from '../../environment/mcp-server.js';
import { writeTaskSet } from '../../environment/task-set.js';
import { EpisodeToolExecutor } from '../../environment/tool-executor.js';
import type { z } from 'zod';
import type { McpHttpServeOptions } from '../../schemas/mcp-http.js';
import {
  fixtureEnvironment,
  fixtureTask,
  mcpInitialize,
  mcpToolCall,
  rawHttp,
  rebindingCancel,
  spawnServeMcp,
  uniqueEpisodeId,
} from './harness.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const hostOf = (url: string) => new URL(url).host;

/** The guards of MCP over HTTP, with real HTTP requests, real SDK client sessions and the episode's real database. */
describe('MCP over HTTP: token, Host/Origin, session cap, idle expiry', () => {
  const env = fixtureEnvironment();
  const task = fixtureTask('cancel-O-1');
  let episode: Episode;
  const servers: McpServer[] = [];
  before(async () => {
    episode = await env.backend.provision(uniqueEpisodeId('mcp-http'), task);
  });
  after(async () => {
    await env.backend.teardown(episode);
    await env.close();
  });

  const logged: string[] = [];
  async function serve(options: z.input<typeof McpHttpServeOptions> = {}): Promise<HttpMcpEndpoint> {
    const executor = new EpisodeToolExecutor(env.backend, episode);
    const create = () => {
      const server = createEpisodeMcpServer(executor);
      servers.push(server);
      return server;
    };
    return serveHttp(create, options, (line) => logged.push(line));
  }
  const connect = (endpoint: HttpMcpEndpoint, token = endpoint.token) =>
    EpisodeMcpClient.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: bearer(token) } }),
    );
  const orderStatus = (id: string) =>
    env.backend.transaction(
      episode,
      async (c) => (await c.query('SELECT status FROM orders WHERE order_id = $1', [id])).rows[0].status as string,
    );

  it('a request without the token, or with a wrong one, gets 401 and opens nothing', async () => {
    const endpoint = await serve();
    try {
      const none = await rawHttp(endpoint.url, { body: mcpInitialize });
      assert.equal(none.status, 401);
      assert.equal(none.headers['www-authenticate'], 'Bearer realm="finalstate-mcp"');
      assert.match(JSON.parse(none.body).error.message, /needs the header `Authorization: Bearer <token>`/);
      const wrong = await rawHttp(endpoint.url, { headers: bearer('not-the-token-0123456789'), body: mcpInitialize });
      assert.deepEqual([wrong.status, JSON.parse(wrong.body).error.message], [401, 'unauthorized: wrong bearer token']);
      await assert.rejects(connect(endpoint, 'x'.repeat(43)), /unauthorized: wrong bearer token/);
      assert.equal(endpoint.sessionCount(), 0);
      const client = await connect(endpoint);
      assert.equal((await client.listTools()).length, 5);
      await client.close();
    } finally {
      await endpoint.close();
    }
  });

  it('a foreign Host or Origin gets 403 from the SDK transport; the own address and a listed origin pass', async () => {
    const endpoint = await serve({ allowedOrigins: ['http://localhost:5173'] });
    try {
      const auth = bearer(endpoint.token);
      const port = new URL(endpoint.url).port;
      const host = await rawHttp(endpoint.url, {
        headers: { ...auth, host: `evil.example:${port}` },
        body: mcpInitialize,
      });
      assert.deepEqual(
        [host.status, JSON.parse(host.body).error.message],
        [403, `Invalid Host header: evil.example:${port}`],
      );
      const origin = await rawHttp(endpoint.url, {
        headers: { ...auth, origin: 'http://evil.example' },
        body: mcpInitialize,
      });
      assert.deepEqual(
        [origin.status, JSON.parse(origin.body).error.message],
        [403, 'Invalid Origin header: http://evil.example'],
      );
      assert.equal(endpoint.sessionCount(), 0, 'refused requests leave no session');
      for (const ok of [
        { host: `localhost:${port}` },
        { origin: `http://127.0.0.1:${port}` },
        { origin: 'http://localhost:5173' },
      ] as Record<string, string>[]) {
        const res = await rawHttp(endpoint.url, { headers: { ...auth, ...ok }, body: mcpInitialize });
        assert.equal(res.status, 200, `${JSON.stringify(ok)}: ${res.body}`);
      }
    } finally {
      await endpoint.close();
    }
  });

  it('a DNS-rebinding request that would cancel an order is refused and the order is unchanged in the database', async () => {
    const endpoint = await serve();
    try {
      const port = new URL(endpoint.url).port;
      // a page on http://rebind.example:<port>, its name re-pointed at 127.0.0.1, posts to the server
      const rebound = { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` };
      const cancel = mcpToolCall('cancel_order', { order_id: 'O-1', reason: 'customer_request' });
      const init = await rawHttp(endpoint.url, { headers: rebound, body: mcpInitialize });
      assert.equal(init.status, 401, 'the page cannot know the token');
      const leaked = await rawHttp(endpoint.url, {
        headers: { ...rebound, ...bearer(endpoint.token) },
        body: mcpInitialize,
      });
      assert.equal(leaked.status, 403, 'even with the token, the foreign Host is refused');
      // worst case: it rides an open session of the real client, id and token known
      const legit = await rawHttp(endpoint.url, { headers: bearer(endpoint.token), body: mcpInitialize });
      const sessionId = String(legit.headers['mcp-session-id']);
      const session = { ...bearer(endpoint.token), 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
      assert.equal(
        (
          await rawHttp(endpoint.url, {
            headers: session,
            body: { jsonrpc: '2.0', method: 'notifications/initialized' },
          })
        ).status,
        202,
      );
      const ride = await rawHttp(endpoint.url, { headers: { ...session, ...rebound }, body: cancel });
      assert.equal(ride.status, 403, ride.body);
      assert.equal(await orderStatus('O-1'), 'placed', 'the order is unchanged');
      // the very same call from the server's own origin goes through: the refusals above were the guards, not a bad request
      const own = await rawHttp(endpoint.url, { headers: { ...session, host: hostOf(endpoint.url) }, body: cancel });
      assert.equal(own.status, 200, own.body);
      assert.equal(await orderStatus('O-1'), 'cancelled');
    } finally {
      await endpoint.close();
    }
  });

  it('sessions beyond the cap get 503 with the reason; closing one makes room', async () => {
    const endpoint = await serve({ maxSessions: 2 });
    try {
      const first = await connect(endpoint);
      const second = await connect(endpoint);
      const third = await rawHttp(endpoint.url, { headers: bearer(endpoint.token), body: mcpInitialize });
      assert.equal(third.status, 503);
      assert.equal(third.headers['retry-after'], '300');
      assert.match(
        JSON.parse(third.body).error.message,
        /too many MCP sessions: this server allows 2 at once \(--max-sessions\)/,
      );
      await assert.rejects(connect(endpoint), /too many MCP sessions/);
      assert.equal(endpoint.sessionCount(), 2);
      await first.close();
      const again = await connect(endpoint);
      assert.equal((await again.listTools()).length, 5);
      await Promise.all([second.close(), again.close()]);
    } finally {
      await endpoint.close();
    }
  });

  it('a session idle past the limit is closed with its McpServer; a session in use is kept', async () => {
    const endpoint = await serve({ sessionIdleSeconds: 1, maxSessions: 1 });
    try {
      const busy = await connect(endpoint);
      const busyServer = servers.at(-1)!;
      for (let i = 0; i < 7; i++) {
        await new Promise((r) => setTimeout(r, 200));
        await busy.callTool('get_order', { order_id: 'O-3' });
      }
      assert.equal(endpoint.sessionCount(), 1, 'a call every 200 ms keeps the session past the 1 s limit');
      const closed = new Promise<void>((resolve) => (busyServer.server.onclose = () => resolve()));
      await closed;
      assert.equal(endpoint.sessionCount(), 0, 'idle 1 s: closed');
      assert.match(logged.at(-1) ?? '', /^MCP session [0-9a-f-]{36} closed: idle for 1 s$/);
      const late = await busy.callTool('get_order', { order_id: 'O-3' }).catch((err: Error) => err);
      assert.match(String(late), /404|unknown MCP session/);
      // the cap of 1 counts open sessions only: the expired one no longer blocks a new client
      const next = await connect(endpoint);
      assert.equal((await next.listTools()).length, 5);
      await next.close();
      await busy.close().catch(() => undefined);
    } finally {
      await endpoint.close();
    }
  });

  /** A raw connection that sends `head` and then nothing; `closed` resolves when the server drops it. */
  const stall = (url: string, head: string) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    socket.on('error', () => undefined);
    socket.resume(); // read what the server sends, so that its close is seen
    let isClosed = false;
    const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve(void socket.write(head))));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve(void (isClosed = true))));
    return { socket, connected, closed, isClosed: () => isClosed };
  };

  it('a request that stalls mid-body does not keep its session: idle expiry closes both and frees the slot', async () => {
    // the request timeout (30 s) is far off: only idle expiry can end this within the test
    const endpoint = await serve({ sessionIdleSeconds: 1, maxSessions: 1 });
    try {
      const held = await rawHttp(endpoint.url, { headers: bearer(endpoint.token), body: mcpInitialize });
      const heldServer = servers.at(-1)!;
      const closedServer = new Promise<void>((resolve) => (heldServer.server.onclose = () => resolve()));
      const { host } = new URL(endpoint.url);
      const stalled = stall(
        endpoint.url,
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${endpoint.token}\r\n` +
          `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          `Mcp-Session-Id: ${String(held.headers['mcp-session-id'])}\r\nContent-Length: 400\r\n\r\n{"jsonrpc":"2.0"`,
      );
      await stalled.connected;
      await Promise.all([closedServer, stalled.closed]);
      assert.equal(endpoint.sessionCount(), 0);
      assert.match(logged.at(-1) ?? '', /^MCP session [0-9a-f-]{36} closed: idle for 1 s \(1 request stalled\)$/);
      const next = await connect(endpoint);
      assert.equal((await next.listTools()).length, 5, 'the slot of the stalled session is free again');
      await next.close();
    } finally {
      await endpoint.close();
    }
  });

  it('connections without the token beyond the cap are closed oldest first; a client with the token is served', async () => {
    const endpoint = await serve({ maxUnauthenticatedConnections: 4, maxConnections: 16 });
    try {
      const { host } = new URL(endpoint.url);
      const flood = [];
      for (let i = 0; i < 40; i++) {
        const s = stall(endpoint.url, `POST /mcp HTTP/1.1\r\nHost: ${host}\r\n`);
        await s.connected;
        flood.push(s);
      }
      await Promise.all(flood.slice(0, 36).map((s) => s.closed));
      assert.deepEqual(
        flood.map((s) => s.isClosed()),
        [...Array<boolean>(36).fill(true), ...Array<boolean>(4).fill(false)],
        'the 4 newest are still open',
      );
      const client = await connect(endpoint);
      assert.equal((await client.listTools()).length, 5);
      await client.close();
      for (const s of flood) s.socket.destroy();
    } finally {
      await endpoint.close();
    }
  });

  it('a connection that does not finish its headers in time is closed', async () => {
    const endpoint = await serve({ headersTimeoutSeconds: 1, requestTimeoutSeconds: 1 });
    try {
      const slow = stall(endpoint.url, 'POST /mcp HTTP/1.1\r\n');
      await slow.connected;
      await slow.closed;
      assert.ok(slow.socket.destroyed);
    } finally {
      await endpoint.close();
    }
  });
});

describe('tasks serve-mcp --transport http, spawned', () => {
  let dir: string;
  const task = fixtureTask('cancel-O-1');
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-serve-http-'));
    writeTaskSet(dir, 'fixture', '1', [task]);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a DNS-rebinding cancel without the token and with a foreign Host; the order stays placed', async () => {
    const served = await spawnServeMcp(['--task', task.id, '--dir', dir, '--episode', uniqueEpisodeId('rebind')]);
    try {
      const port = new URL(served.url).port;
      const rebound = { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` };
      const orderStatus = () =>
        withClient(
          loadConfig(),
          served.database,
          async (c) => (await c.query("SELECT status FROM orders WHERE order_id = 'O-1'")).rows[0].status as string,
        );
      const withoutToken = await rebindingCancel(served.url, rebound);
      assert.equal(await orderStatus(), 'placed', `the order is unchanged (answered ${JSON.stringify(withoutToken)})`);
      assert.deepEqual(withoutToken, { initialize: 401, call: 401 });
      const token = fs.readFileSync(served.tokenFile, 'utf8').trim();
      const withToken = await rebindingCancel(served.url, { ...rebound, ...bearer(token) });
      assert.equal(await orderStatus(), 'placed', `the order is unchanged (answered ${JSON.stringify(withToken)})`);
      assert.deepEqual(withToken, { initialize: 403, call: 403 });
    } finally {
      await served.stop();
    }
  });

  it('writes the token file fresh and owner-only, replaces a stale one, and refuses to overwrite anything else', async () => {
    const file = path.join(dir, 'tokens', 'a.token');
    writeTokenFile(file, 'first-token-0123456789');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    fs.chmodSync(file, 0o644);
    writeTokenFile(file, 'second-token-0123456789');
    assert.deepEqual(
      [fs.readFileSync(file, 'utf8'), fs.statSync(file).mode & 0o777],
      ['second-token-0123456789\n', 0o600],
    );
    const precious = path.join(dir, 'notes.txt');
    fs.writeFileSync(precious, 'my notes\nline two\n');
    await assert.rejects(
      spawnServeMcp(['--task', task.id, '--dir', dir, '--token-file', precious]),
      /token file .*notes\.txt: something other than a token file is there; refusing to overwrite it/,
    );
    assert.equal(fs.readFileSync(precious, 'utf8'), 'my notes\nline two\n');
    const link = path.join(dir, 'link.token');
    fs.symlinkSync(precious, link);
    assert.throws(() => writeTokenFile(link, 'third-token-0123456789'), /refusing to overwrite/);
  });

  it('rejects a bad guard flag by name before provisioning anything', async () => {
    await assert.rejects(
      spawnServeMcp(['--task', task.id, '--dir', dir, '--max-sessions', '0']),
      /--max-sessions: Too small/,
    );
    await assert.rejects(
      spawnServeMcp(['--task', task.id, '--dir', dir, '--allowed-origin', 'http://x/y']),
      /--allowed-origin: an origin such as/,
    );
  });
});

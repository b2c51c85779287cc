import fs from 'node:fs';
import net from 'node:net';
import { mcpInitialize, mcpToolCall, rawHttp, withServedFixtureTask } from '../../environment/harness.js';
import type { SecurityProbe } from '../probe.js';

/** Poll `check` every 100 ms until it is true or `ms` have passed; true when it became true. */
async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A raw TCP connection that sends `head` and then nothing more; `closed` tells when the server dropped it. */
function stalledSocket(url: URL, head: string) {
  const socket = net.connect(Number(url.port), url.hostname);
  const state = { connected: false, closed: false };
  socket.on('connect', () => {
    state.connected = true;
    socket.write(head);
  });
  socket.on('error', () => undefined);
  socket.resume(); // read what the server sends, so that its close is seen
  socket.on('close', () => (state.closed = true));
  return { socket, state };
}

/** An authenticated session that initializes and calls a tool, as a real client does; the statuses it got. */
async function useSession(url: string, token: string): Promise<{ initialize: number; call: number }> {
  const auth = { authorization: `Bearer ${token}` };
  const init = await rawHttp(url, { headers: auth, body: mcpInitialize });
  const id = init.headers['mcp-session-id'];
  if (init.status !== 200 || !id) return { initialize: init.status, call: 0 };
  const session = { ...auth, 'mcp-session-id': String(id), 'mcp-protocol-version': '2025-06-18' };
  await rawHttp(url, { headers: session, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  const call = await rawHttp(url, { headers: session, body: mcpToolCall('get_order', { order_id: 'O-3' }) });
  return { initialize: init.status, call: call.status };
}

const fdCount = (pid: number) => fs.readdirSync(`/proc/${pid}/fd`).length;

const slowRequest: SecurityProbe = {
  area: 'mcp-http',
  name: 'a stalled request does not keep its session past idle expiry',
  run: () =>
    withServedFixtureTask(['--max-sessions', '1', '--session-idle-seconds', '1'], async (served, token) => {
      const url = new URL(served.url);
      const first = await rawHttp(served.url, { headers: { authorization: `Bearer ${token}` }, body: mcpInitialize });
      const sessionId = String(first.headers['mcp-session-id']);
      // a tool call whose body never arrives in full: headers promise 400 bytes, 20 come
      const stalled = stalledSocket(
        url,
        `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nMcp-Session-Id: ${sessionId}\r\nMcp-Protocol-Version: 2025-06-18\r\n` +
          `Content-Length: 400\r\n\r\n{"jsonrpc":"2.0","id"`,
      );
      let next = { initialize: 0, call: 0 };
      // the idle limit is 1 s and the request timeout 30 s: within 15 s only idle expiry can free the slot
      const freed = await eventually(async () => {
        next = await useSession(served.url, token);
        return next.initialize === 200;
      }, 15_000);
      const dropped = await eventually(() => stalled.state.closed, 5_000);
      stalled.socket.destroy();
      return [
        {
          attempt:
            'hold the only session (--max-sessions 1, --session-idle-seconds 1) with a request that stalls mid-body, then open another',
          outcome: `first session HTTP ${first.status}; new session ${freed ? `accepted (initialize ${next.initialize}, tools/call ${next.call})` : `still refused after 15 s (initialize HTTP ${next.initialize})`}; the stalled request's connection ${dropped ? 'was closed by the server' : 'is still open'}`,
          held: first.status === 200 && freed && next.call === 200 && dropped,
        },
      ];
    }),
};

const SOCKETS = 1_000;

const socketFlood: SecurityProbe = {
  area: 'mcp-http',
  name: 'a flood of unauthenticated sockets holds neither file descriptors nor the server',
  run: () =>
    withServedFixtureTask([], async (served, token) => {
      const url = new URL(served.url);
      const pid = served.child.pid!;
      const before = fdCount(pid);
      // half-open requests: a request line and a Host header, then silence
      const flood = Array.from({ length: SOCKETS }, () =>
        stalledSocket(url, `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\n`),
      );
      try {
        await eventually(() => flood.every((s) => s.state.connected || s.state.closed), 20_000);
        // the server closes all but its cap of unauthenticated connections (16 by default)
        await eventually(() => flood.filter((s) => !s.state.closed).length <= 16, 10_000);
        const during = fdCount(pid);
        const open = flood.filter((s) => !s.state.closed).length;
        const client = await useSession(served.url, token);
        const bound = 16 + 8;
        return [
          {
            attempt: `open ${SOCKETS.toLocaleString('en-US')} TCP connections that send half a request and no token, then use a session with the token`,
            outcome: `server fds ${before} before, ${during} with the flood (${open} of its sockets still open); client with the token: initialize HTTP ${client.initialize}, tools/call HTTP ${client.call}`,
            held: during - before <= bound && client.initialize === 200 && client.call === 200,
          },
        ];
      } finally {
        for (const s of flood) s.socket.destroy();
      }
    }),
};

const probes: SecurityProbe[] = [slowRequest, socketFlood];
export default probes;

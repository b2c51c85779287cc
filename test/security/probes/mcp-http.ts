import { loadConfig } from '../../../workers/config.js';
import { withClient } from '../../../infra/stack/postgres.js';
import { answerOf, mcpInitialize, rawHttp, rebindingCancel, withServedFixtureTask } from '../../environment/harness.js';
import type { ProbeResult, SecurityProbe } from '../probe.js';

const guards: SecurityProbe = {
  area: 'mcp-http',
  name: 'serve-mcp refuses requests without the token or from a foreign Host/Origin',
  run: () =>
    withServedFixtureTask([], async (served, token) => {
      const port = new URL(served.url).port;
      const auth = { authorization: `Bearer ${token}` };
      const tries: [string, Record<string, string>, number][] = [
        ['initialize an MCP session without a bearer token', {}, 401],
        ['initialize with a wrong bearer token', { authorization: 'Bearer wrong-token-0123456789abcdef' }, 401],
        [
          `initialize with the token and a foreign Host (evil.example:${port})`,
          { ...auth, host: `evil.example:${port}` },
          403,
        ],
        [
          'initialize with the token and a foreign Origin (http://evil.example)',
          { ...auth, origin: 'http://evil.example' },
          403,
        ],
      ];
      const results: ProbeResult[] = [];
      for (const [attempt, headers, expected] of tries) {
        const res = await rawHttp(served.url, { headers, body: mcpInitialize });
        results.push({ attempt, outcome: answerOf(res), held: res.status === expected });
      }
      const rebound = { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` };
      const orderStatus = () =>
        withClient(
          loadConfig(),
          served.database,
          async (c) => (await c.query("SELECT status FROM orders WHERE order_id = 'O-1'")).rows[0].status as string,
        );
      for (const [attempt, headers] of [
        ['DNS rebinding: a web page re-pointed at 127.0.0.1 initializes and cancels order O-1', rebound],
        ['DNS rebinding with a leaked token: initialize and cancel order O-1', { ...rebound, ...auth }],
      ] as [string, Record<string, string>][]) {
        const statuses = await rebindingCancel(served.url, headers);
        const status = await orderStatus();
        results.push({
          attempt,
          outcome: `initialize HTTP ${statuses.initialize}, tools/call HTTP ${statuses.call}; order O-1 is ${status} in the episode database`,
          held: status === 'placed',
        });
      }
      return results;
    }),
};

const sessionCap: SecurityProbe = {
  area: 'mcp-http',
  name: 'serve-mcp caps its sessions',
  run: () =>
    withServedFixtureTask(['--max-sessions', '2'], async (served, token) => {
      const auth = { authorization: `Bearer ${token}` };
      const opened = [];
      for (let i = 0; i < 2; i++) opened.push(await rawHttp(served.url, { headers: auth, body: mcpInitialize }));
      const beyond = await rawHttp(served.url, { headers: auth, body: mcpInitialize });
      return [
        {
          attempt: 'open a third MCP session on a server started with --max-sessions 2',
          outcome: `sessions 1-2: HTTP ${opened.map((r) => r.status).join(', ')}; session 3: ${answerOf(beyond)}`,
          held: opened.every((r) => r.status === 200) && beyond.status === 503,
        },
      ];
    }),
};

const probes: SecurityProbe[] = [guards, sessionCap];
export default probes;

import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * TEST-ONLY FAKE of the policy server's admin surface (python/finalstate/policy_server/api.py): POST /admin/reload
 * {checkpoint, version} and GET /v1/models reporting policy_version. The new version shows only after `loadDelayMs`,
 * as a real server needs time to load weights, so publishPolicy must wait for it.
 */
export async function startFakePolicyServer(loadDelayMs = 150) {
  let version = 0;
  const reloads: Array<{ checkpoint: string; version: number }> = [];
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/v1/models') return send(200, { object: 'list', data: [{ id: 'fake', policy_version: version }] });
    if (req.method === 'POST' && req.url === '/admin/reload') {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as { checkpoint?: string; version?: number };
        if (!body.checkpoint || typeof body.version !== 'number') return send(400, { error: { message: 'checkpoint and version required' } });
        reloads.push({ checkpoint: body.checkpoint, version: body.version });
        const next = body.version;
        setTimeout(() => (version = next), loadDelayMs);
        send(200, { status: 'ok', checkpoint: body.checkpoint, policy_version: version });
      });
      return;
    }
    send(404, { error: { message: `no route ${req.method} ${req.url}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    reloads,
    version: () => version,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

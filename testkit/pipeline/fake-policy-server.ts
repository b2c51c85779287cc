import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * TEST-ONLY FAKE of the project policy server's admin surface (python/finalstate/policy_server/api.py, the subset of
 * vLLM's dev-mode routes it implements): POST /pause, /collective_rpc reload_weights {weights_path, policy_version},
 * /reset_prefix_cache, /resume, and GET /v1/models reporting policy_version (and owned_by "finalstate", the kind). The new version shows only `loadDelayMs`
 * after the reload call answers, so publishPolicy must poll for it. Every admin call is recorded in `calls`.
 */
export async function startFakePolicyServer(loadDelayMs = 150) {
  let version = 0;
  let paused = false;
  const reloads: Array<{ checkpoint: string; version: number }> = [];
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...(body as object), policy_version: version }));
    };
    if (req.method === 'GET' && req.url === '/v1/models')
      return send(200, { object: 'list', data: [{ id: 'fake', owned_by: 'finalstate', policy_version: version }] });
    if (req.method !== 'POST') return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const route = (req.url ?? '').split('?', 1)[0]!;
      calls.push(route);
      if (route === '/pause') {
        paused = true;
        return send(200, { status: 'paused' });
      }
      if (route === '/resume') {
        paused = false;
        return send(200, { status: 'resumed' });
      }
      if (route === '/reset_prefix_cache') {
        res.writeHead(200, { 'content-length': '0' });
        return res.end();
      }
      if (route !== '/collective_rpc') return send(404, { error: { message: `no route POST ${req.url}` } });
      const body = JSON.parse(text) as { method?: string; kwargs?: { weights_path?: string; policy_version?: number } };
      const kwargs = body.kwargs ?? {};
      if (body.method !== 'reload_weights' || !kwargs.weights_path || typeof kwargs.policy_version !== 'number') {
        return send(400, { error: { message: 'reload_weights needs weights_path and policy_version' } });
      }
      if (!paused)
        return send(400, { error: { message: 'reload_weights while serving: the publisher must /pause first' } });
      reloads.push({ checkpoint: kwargs.weights_path, version: kwargs.policy_version });
      const next = kwargs.policy_version;
      setTimeout(() => (version = next), loadDelayMs);
      send(200, { results: [null] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    reloads,
    calls,
    version: () => version,
    paused: () => paused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

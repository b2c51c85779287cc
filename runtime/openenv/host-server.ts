import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OpenEnvHostError } from '../../schemas/openenv.js';
import { HostRefusal, type EpisodeHost } from './episode-host.js';

/** What the Python OpenEnv server needs to know of the environment for its /metadata. */
export interface HostInfo {
  name: string;
  version: string;
  description: string;
  readme: string;
}

export interface HostEndpoint {
  url: string;
  /** The per-run secret the Python server sends (`Authorization: Bearer <secret>`). */
  secret: string;
  close(): Promise<void>;
}

/** A request body larger than this is refused (an action is small). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

const STATUS: Record<OpenEnvHostError['kind'], number> = {
  bad_request: 400,
  not_found: 404,
  conflict: 409,
  infrastructure: 500,
};

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * The episode host's API, for the Python OpenEnv server only: 127.0.0.1, a random port, and a per-run secret on every
 * request. `POST /episodes` (reset), `POST /episodes/{id}/step`, `DELETE /episodes/{id}` (close; answered once the
 * episode is torn down), `GET /tasks`, `GET /tasks/{id}`, `GET /info`. Bodies and answers are schemas/openenv.ts's
 * shapes; a refusal is an OpenEnvHostError.
 */
export async function serveEpisodeHost(host: EpisodeHost, info: HostInfo): Promise<HostEndpoint> {
  const secret = randomBytes(32).toString('base64url');
  const secretDigest = digest(secret);
  const send = (res: http.ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) return void res.writeHead(status).end();
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const refuse = (res: http.ServerResponse, kind: OpenEnvHostError['kind'], error: string) =>
    send(res, STATUS[kind], { error, kind } satisfies OpenEnvHostError);

  const route = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const match = /^Bearer ([\x21-\x7e]+)$/.exec(req.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]!), secretDigest))
      return refuse(res, 'bad_request', 'the episode host answers its own OpenEnv server only');
    const parts = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
      .split('/')
      .filter(Boolean)
      .map(decodeURIComponent);
    const method = req.method ?? 'GET';
    if (method === 'GET' && parts.length === 1 && parts[0] === 'info') return send(res, 200, info);
    if (method === 'GET' && parts.length === 1 && parts[0] === 'tasks') return send(res, 200, host.taskSets());
    if (method === 'GET' && parts.length === 2 && parts[0] === 'tasks')
      return send(res, 200, host.taskSummary(parts[1]!));
    if (parts[0] === 'episodes') {
      if (method === 'POST' && parts.length === 1) return send(res, 200, await host.reset(await jsonBody(req)));
      if (method === 'POST' && parts.length === 3 && parts[2] === 'step') {
        const body = (await jsonBody(req)) as { action?: unknown } | null;
        if (typeof body !== 'object' || body === null || !('action' in body))
          return refuse(res, 'bad_request', 'step: the body is {"action": {...}}');
        return send(res, 200, await host.step(parts[1]!, body.action));
      }
      if (method === 'DELETE' && parts.length === 2) {
        const why = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('why') ?? 'closed';
        await host.close(parts[1]!, why.slice(0, 200));
        return send(res, 204);
      }
    }
    return refuse(res, 'not_found', `no route ${method} ${req.url}`);
  };

  const server = http.createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof HostRefusal) return refuse(res, err.kind, err.message);
      refuse(res, 'infrastructure', err instanceof Error ? err.message : String(err));
    });
  });
  // a step waits on the loop: the tool call (bounded by the episode's clock) or the user simulator (its client's timeout)
  server.requestTimeout = 0;
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    secret,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The request's JSON body (null when empty); a malformed or oversized one is a HostRefusal. */
async function jsonBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HostRefusal(`the body is over ${MAX_BODY_BYTES} bytes`, 'bad_request');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new HostRefusal(`the body is not JSON: ${(err as Error).message}`, 'bad_request');
  }
}

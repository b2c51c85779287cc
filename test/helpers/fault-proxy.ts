import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of a real server that records every request and injects the faults a network or a
 * load balancer in front of it produces: the next requests to a route answer a chosen status (e.g. 503) without
 * reaching the server. Everything else is forwarded unchanged, so the server's own behaviour is what the test sees.
 */
export interface ProxiedRequest {
  method: string;
  path: string;
  body: unknown;
  /** The status the client got, and the body (parsed when JSON). */
  status: number;
  response?: unknown;
  /** Whether the proxy answered it (an injected fault) instead of the server. */
  injected: boolean;
}

export class FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  private readonly server: http.Server;
  private readonly faults = new Map<string, number[]>();
  private readonly blocked = new Map<string, number>();
  private readonly held = new Map<string, Promise<unknown>>();
  url = '';

  constructor(readonly target: string) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next requests to `route` (the path without its query, e.g. "/collective_rpc") answer these statuses. */
  failNext(route: string, ...statuses: number[]): void {
    this.faults.set(route, [...(this.faults.get(route) ?? []), ...statuses]);
  }

  /** Every request to `route` answers `status`, as from a gateway that does not forward that route. */
  block(route: string, status = 404): void {
    this.blocked.set(route, status);
  }

  /** Requests to `route` reach the server again. */
  unblock(route: string): void {
    this.blocked.delete(route);
  }

  /** Requests to `route` forwarded to the server and not answered yet. */
  inFlight(route: string): number {
    return this.requests.filter((r) => r.status === 0 && r.path.split('?', 1)[0] === route).length;
  }

  /** Requests to `route` reach the server only once `until` settles (a slow call the test decides the end of). */
  hold(route: string, until: Promise<unknown>): void {
    this.held.set(route, until);
  }

  /** The paths requested, in order (with their query), leaving out the routes in `except`. */
  paths(except: string[] = []): string[] {
    return this.requests.map((r) => r.path).filter((p) => !except.includes(p.split('?', 1)[0]!));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = req.url ?? '/';
    let body: unknown;
    try {
      body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
    } catch {
      body = raw.toString('utf8');
    }
    const route = path.split('?', 1)[0]!;
    const fault = this.faults.get(route)?.shift() ?? this.blocked.get(route);
    if (fault !== undefined) {
      this.requests.push({ method: req.method ?? 'GET', path, body, status: fault, injected: true });
      res.writeHead(fault, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `injected by the test proxy: HTTP ${fault}`, code: fault } }));
      return;
    }
    const record: ProxiedRequest = { method: req.method ?? 'GET', path, body, status: 0, injected: false };
    this.requests.push(record);
    await this.held.get(route)?.catch(() => undefined);
    try {
      const response = await fetch(`${this.target}${path}`, {
        method: req.method,
        headers: {
          'content-type': req.headers['content-type'] ?? 'application/json',
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        },
        ...(raw.length ? { body: raw } : {}),
      });
      record.status = response.status;
      const answer = Buffer.from(await response.arrayBuffer());
      try {
        record.response = answer.length ? JSON.parse(answer.toString('utf8')) : undefined;
      } catch {
        record.response = answer.toString('utf8');
      }
      res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'application/json' });
      res.end(answer);
    } catch (err) {
      record.status = 502;
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `proxy: ${(err as Error).message}` } }));
    }
  }
}

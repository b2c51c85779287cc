import { randomUUID } from 'node:crypto';
import { contentHash } from '../canonical.js';
import type { ThinkingBoxProxyClient } from './proxy-client.js';

/** What a session is created with: the task's merged server configuration and the tools it exposes. */
export interface SessionSpec {
  serverConfig: Record<string, Record<string, unknown>>;
  availableTools: string[];
}

export interface TakenSession {
  sessionId: string;
  initResult: Record<string, unknown>;
  /** How long the episode waited for it (≈0 when a spare was ready). */
  waitMs: number;
  /** True when it was created ahead (a spare). */
  spare: boolean;
}

interface Spare {
  sessionId: string;
  initResult: Record<string, unknown>;
}

/**
 * Sessions created ahead, as the PostgreSQL side keeps spare databases: session_create starts one Python process per
 * server and takes 1-3 s, so each configuration seen keeps up to `spares` sessions ready, refilled in the background
 * after each take. A spare is a fresh session nobody called (its state is the configuration's initial state), so any
 * episode of the same configuration may take it. Sessions get random ids; the episode's row names the one it took.
 */
export class ThinkingBoxSessionPool {
  private readonly ready = new Map<string, Spare[]>();
  private readonly filling = new Map<string, number>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  /** Sessions this pool created, spares included (the proxy is restarted after so many). */
  created = 0;

  constructor(
    private readonly proxy: ThinkingBoxProxyClient,
    private readonly options: { spares: number; timeoutSeconds: number },
  ) {}

  async take(spec: SessionSpec): Promise<TakenSession> {
    const key = contentHash(spec);
    const started = performance.now();
    const spare = this.ready.get(key)?.shift();
    this.refill(key, spec);
    if (spare) return { ...spare, waitMs: performance.now() - started, spare: true };
    const made = await this.create(spec);
    return { ...made, waitMs: performance.now() - started, spare: false };
  }

  /** Create `count` spares of `spec` now (benchmarks measure the warm path with this). */
  async warm(spec: SessionSpec, count = this.options.spares): Promise<void> {
    const key = contentHash(spec);
    const list = this.ready.get(key) ?? [];
    this.ready.set(key, list);
    while (list.length < count) list.push(await this.create(spec));
  }

  /** Destroy every spare; an episode's own session is destroyed by its episode. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    const spares = [...this.ready.values()].flat();
    this.ready.clear();
    await Promise.allSettled(spares.map((s) => this.proxy.destroySession(s.sessionId)));
  }

  private async create(spec: SessionSpec): Promise<Spare> {
    const sessionId = `finalstate-${randomUUID()}`;
    this.created++;
    const initResult = await this.proxy.createSession({
      sessionId,
      serverConfig: spec.serverConfig,
      availableTools: spec.availableTools,
      timeoutSeconds: this.options.timeoutSeconds,
    });
    return { sessionId, initResult };
  }

  private refill(key: string, spec: SessionSpec): void {
    if (this.closed || this.options.spares === 0) return;
    const list = this.ready.get(key) ?? [];
    this.ready.set(key, list);
    const pending = this.filling.get(key) ?? 0;
    if (list.length + pending >= this.options.spares) return;
    this.filling.set(key, pending + 1);
    const job = this.create(spec)
      .then(async (spare) => {
        if (this.closed) await this.proxy.destroySession(spare.sessionId);
        else list.push(spare);
      })
      .catch(() => undefined) // a spare that could not be made is made on demand, where its failure is reported
      .finally(() => {
        this.filling.set(key, (this.filling.get(key) ?? 1) - 1);
        this.inFlight.delete(job);
      });
    this.inFlight.add(job);
  }
}

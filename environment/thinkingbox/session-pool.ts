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

export interface SessionPoolOptions {
  spares: number;
  /**
   * Configurations kept spares for, the most recently taken (default 4): each task has a configuration of its own,
   * and a spare is a process per server, so the spares of a configuration no longer played are destroyed.
   */
  spareConfigurations?: number;
  timeoutSeconds: number;
  /**
   * Restart the proxy (a managed one) after this many sessions since its start, or when its session_create has become
   * `degradedFactor` times slower than its first creates; 0: never. The restart waits until no session of this pool
   * is out (new takes wait meanwhile): it happens between episodes.
   */
  restartAfterSessions?: number;
  degradedFactor?: number;
  restart?: () => Promise<void>;
}

/** Creates compared, at the start of a proxy's life and lately, to tell that session_create has slowed down. */
const LATENCY_WINDOW = 20;

/**
 * Sessions created ahead, as the PostgreSQL side keeps spare databases: session_create starts one Python process per
 * server and takes 1-3 s, so each configuration seen keeps up to `spares` sessions ready, refilled in the background
 * after each take. A spare is a fresh session nobody called (its state is the configuration's initial state), so any
 * episode of the same configuration may take it. Sessions get random ids; the episode's row names the one it took.
 *
 * The proxy slows down over its life (the reference trainer restarted it after about 1,500 sessions): with a
 * `restart`, the pool restarts it after `restartAfterSessions` creates or once its creates have slowed down, between
 * episodes.
 */
export class ThinkingBoxSessionPool {
  private readonly ready = new Map<string, Spare[]>();
  private readonly filling = new Map<string, number>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  /** Sessions created since the proxy's last (re)start, spares included. */
  created = 0;
  /** Proxy restarts this pool made. */
  restarts = 0;
  /** Sessions taken and not yet released (episodes of this worker holding one). */
  private out = 0;
  private whenIdle: (() => void) | undefined;
  private restarting: Promise<void> | undefined;
  private firstCreates: number[] = [];
  private lastCreates: number[] = [];

  constructor(
    private readonly proxy: ThinkingBoxProxyClient,
    private readonly options: SessionPoolOptions,
  ) {}

  /** A session of this pool's proxy that an episode holds without taking it (it reattached to its own). */
  hold(): void {
    this.out++;
  }

  /**
   * The episode is over: its session is destroyed in the background (0.5 s a session here, which the episode need not
   * wait for; `close` waits for every one) and given back.
   */
  discard(sessionId: string): void {
    this.destroyInBackground(sessionId); // one the proxy lost is gone; one it failed to destroy is the janitor's
    this.release();
  }

  /** A session taken is given back (its episode is over or detached): a due restart may then run. */
  release(): void {
    this.out = Math.max(0, this.out - 1);
    if (this.out === 0) this.whenIdle?.();
  }

  async take(spec: SessionSpec): Promise<TakenSession> {
    while (this.restartDue() || this.restarting) await (this.restarting ??= this.restartWhenIdle());
    this.out++;
    const key = contentHash(spec);
    const started = performance.now();
    try {
      const spare = this.ready.get(key)?.shift();
      this.touch(key);
      this.refill(key, spec);
      if (spare) return { ...spare, waitMs: performance.now() - started, spare: true };
      const made = await this.create(spec);
      return { ...made, waitMs: performance.now() - started, spare: false };
    } catch (err) {
      this.release();
      throw err;
    }
  }

  /** Whether the proxy is due a restart: enough sessions, or its creates have slowed down. */
  private restartDue(): boolean {
    const { restart, restartAfterSessions = 0, degradedFactor = 3 } = this.options;
    if (!restart || this.closed) return false;
    if (restartAfterSessions > 0 && this.created >= restartAfterSessions) return true;
    if (this.lastCreates.length < LATENCY_WINDOW || this.firstCreates.length < LATENCY_WINDOW) return false;
    return median(this.lastCreates) > degradedFactor * median(this.firstCreates);
  }

  /** Wait for every session of this pool to be given back, drop the spares and restart the proxy. */
  private async restartWhenIdle(): Promise<void> {
    try {
      await Promise.allSettled([...this.inFlight]);
      if (this.out > 0) await new Promise<void>((resolve) => (this.whenIdle = resolve));
      this.whenIdle = undefined;
      this.ready.clear(); // they go with the proxy
      await this.options.restart!();
      this.restarts++;
      this.created = 0;
      this.firstCreates = [];
      this.lastCreates = [];
    } finally {
      this.restarting = undefined;
    }
  }

  /** Create `count` spares of `spec` now (benchmarks measure the warm path with this). */
  async warm(spec: SessionSpec, count = this.options.spares): Promise<void> {
    const key = contentHash(spec);
    const list = this.ready.get(key) ?? [];
    this.ready.set(key, list);
    while (list.length < count) list.push(await this.create(spec));
  }

  /** Wait for the pool's background work: refills and destroys. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
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
    const started = performance.now();
    const initResult = await this.proxy.createSession({
      sessionId,
      serverConfig: spec.serverConfig,
      availableTools: spec.availableTools,
      timeoutSeconds: this.options.timeoutSeconds,
    });
    const ms = performance.now() - started;
    if (this.firstCreates.length < LATENCY_WINDOW) this.firstCreates.push(ms);
    else this.lastCreates = [...this.lastCreates, ms].slice(-LATENCY_WINDOW);
    return { sessionId, initResult };
  }

  /** `key` becomes the most recently taken configuration; the spares of the least recent beyond the limit go. */
  private touch(key: string): void {
    if (this.options.spares === 0) return;
    const list = this.ready.get(key) ?? [];
    this.ready.delete(key);
    this.ready.set(key, list); // a Map iterates in insertion order: the most recent last
    const excess = this.ready.size - (this.options.spareConfigurations ?? 4);
    for (const old of [...this.ready.keys()].slice(0, Math.max(0, excess))) {
      for (const spare of this.ready.get(old) ?? []) this.destroyInBackground(spare.sessionId);
      this.ready.delete(old);
    }
  }

  private destroyInBackground(sessionId: string): void {
    const job = this.proxy
      .destroySession(sessionId)
      .catch(() => undefined)
      .finally(() => this.inFlight.delete(job));
    this.inFlight.add(job);
  }

  private refill(key: string, spec: SessionSpec): void {
    if (this.closed || this.options.spares === 0) return;
    const list = this.ready.get(key);
    if (!list) return;
    const pending = this.filling.get(key) ?? 0;
    if (list.length + pending >= this.options.spares) return;
    this.filling.set(key, pending + 1);
    const job = this.create(spec)
      .then(async (spare) => {
        // closed, or its configuration's spares were dropped meanwhile
        if (this.closed || this.ready.get(key) !== list) await this.proxy.destroySession(spare.sessionId);
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

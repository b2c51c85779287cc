import { randomBytes } from 'node:crypto';
import { SPARE_DB_PREFIX } from './naming.js';
import { ident, literal } from './sql.js';

type AdminQuery = (sql: string, params?: unknown[]) => Promise<unknown>;

/** How many spares a template keeps: a fixed number, or as many as its peak of live episodes, up to `max`. */
export type SparePoolSize = number | { max: number };

export function spareDatabaseName(): string {
  return `${SPARE_DB_PREFIX}${randomBytes(8).toString('hex')}`;
}

/** The comment a spare carries: the janitor's marker (when) and which template it is a copy of. */
export function spareMarkerSql(name: string, template: string): string {
  return `COMMENT ON DATABASE ${ident(name)} IS ${literal(JSON.stringify({ spareOf: template, createdAt: new Date().toISOString() }))}`;
}

/**
 * Copies of a template made ahead of time, so that provisioning an episode renames a spare (a catalog update)
 * instead of copying the template on the episode's critical path. Spares come from two sources: copies made here in
 * the background, one at a time, and torn-down episode databases reset to the template's state (`reserve` / `put`,
 * see recycleEpisodeDatabase), which cost far less than a copy. Each process uses only the spares it made, so two
 * processes never race for one; spares leaked by a crashed process are dropped by the janitor.
 *
 * The pool aims at `target` spares ready or on their way. When databases come back reset (`recycles`), the ones it
 * handed out count too, and it aims at twice the target in all (handed out, resetting, ready): a template's
 * databases then circulate, and copies are made only for a peak of live episodes the pool has not seen yet.
 */
export class SpareDatabases {
  private readonly ready = new Map<string, string[]>();
  /** Resets under way per template: spares on their way back. */
  private readonly incoming = new Map<string, number>();
  /** Provisions waiting for a spare on its way (see take). */
  private readonly waiters = new Map<string, ((name: string | undefined) => void)[]>();
  private readonly peak = new Map<string, number>();
  /** Spares handed to episodes that have not come back (see `returned`). */
  private readonly out = new Map<string, number>();
  /** Set when torn-down episode databases come back reset (see the class comment). */
  recycles = false;
  private readonly filling = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly adminQuery: AdminQuery,
    private readonly strategy: string,
    readonly size: SparePoolSize,
  ) {}

  /** The number of spares a template aims at now. */
  target(template: string): number {
    if (typeof this.size === 'number') return this.size;
    return Math.min(this.size.max, Math.max(1, this.peak.get(template) ?? 0));
  }

  /** Tell the pool how many episodes of the template are live: an adaptive pool grows to the peak. */
  live(template: string, count: number): void {
    if (count <= (this.peak.get(template) ?? 0)) return;
    this.peak.set(template, count);
    this.refill(template);
  }

  private readyList(template: string): string[] {
    let list = this.ready.get(template);
    if (!list) this.ready.set(template, (list = []));
    return list;
  }

  /** Whether the pool holds fewer databases than it aims at. */
  private short(template: string): boolean {
    const spares = this.readyList(template).length + (this.incoming.get(template) ?? 0);
    if (!this.recycles) return spares < this.target(template);
    return spares + (this.out.get(template) ?? 0) < 2 * this.target(template);
  }

  /**
   * A spare copy of the template, removed from the pool: a ready one, else one on its way back from a reset (waited
   * for up to `waitMs`: a reset takes a fraction of a copy); undefined when there is none.
   */
  async take(template: string, waitMs = 0): Promise<string | undefined> {
    let spare = this.readyList(template).pop(); // the last one back: its pages are likely still in shared buffers
    const waiting = this.waiters.get(template) ?? [];
    if (!spare && waitMs > 0 && waiting.length < (this.incoming.get(template) ?? 0)) {
      spare = await new Promise<string | undefined>((resolve) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(handOver), 1);
          resolve(undefined);
        }, waitMs);
        const handOver = (name: string | undefined) => {
          clearTimeout(timer);
          resolve(name);
        };
        waiting.push(handOver);
        this.waiters.set(template, waiting);
      });
    }
    if (spare) this.out.set(template, (this.out.get(template) ?? 0) + 1);
    this.refill(template);
    return spare;
  }

  /** An episode that took a spare is torn down (its database may come back through `reserve`). */
  returned(template: string): void {
    this.out.set(template, Math.max(0, (this.out.get(template) ?? 0) - 1));
  }

  /** Whether the pool wants a reset database back; if so, it is counted as incoming until `put` or `cancel`. */
  reserve(template: string): boolean {
    if (this.closed || !this.short(template)) return false;
    this.incoming.set(template, (this.incoming.get(template) ?? 0) + 1);
    return true;
  }

  /** A reserved database is back in its template's state and closed to connections: ready for an episode. */
  put(template: string, name: string): boolean {
    this.incoming.set(template, (this.incoming.get(template) ?? 1) - 1);
    if (this.closed) return false;
    const waiter = this.waiters.get(template)?.shift();
    if (waiter) waiter(name);
    else this.readyList(template).push(name);
    return true;
  }

  /** A reserved database did not come back (its reset failed, and it was dropped). */
  cancel(template: string): void {
    this.incoming.set(template, (this.incoming.get(template) ?? 1) - 1);
    const waiting = this.waiters.get(template) ?? [];
    while (waiting.length > (this.incoming.get(template) ?? 0)) waiting.shift()!(undefined);
    this.refill(template);
  }

  /** Top the pool up in the background (one copy at a time, so it never floods the server). */
  refill(template: string): void {
    if (this.closed || this.target(template) <= 0 || this.filling.has(template)) return;
    const run = (async () => {
      while (!this.closed && this.short(template)) {
        const name = spareDatabaseName();
        // closed to every connection until provisioning has granted it to its episode role (see EnvironmentBackend)
        await this.adminQuery(
          `CREATE DATABASE ${ident(name)} TEMPLATE ${ident(template)} STRATEGY ${this.strategy} ALLOW_CONNECTIONS false`,
        );
        await this.adminQuery(`REVOKE CONNECT, TEMPORARY ON DATABASE ${ident(name)} FROM PUBLIC;
          ${spareMarkerSql(name, template)}`);
        if (this.closed) {
          await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(name)}`);
          return;
        }
        const waiter = this.waiters.get(template)?.shift();
        if (waiter) waiter(name);
        else this.readyList(template).push(name);
      }
    })()
      .catch(() => undefined) // a failed refill only costs speed: provisioning falls back to a direct copy
      .finally(() => this.filling.delete(template));
    this.filling.set(template, run);
  }

  /** Wait for the pools to be full (benchmarks and tests use this to measure the warm path). */
  async warm(template: string, count?: number): Promise<void> {
    if (count !== undefined && count > (this.peak.get(template) ?? 0)) this.peak.set(template, count);
    this.refill(template);
    await this.filling.get(template);
  }

  /** Stop refilling and drop every spare this process made. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.waiters.values()) for (const waiter of waiting.splice(0)) waiter(undefined);
    await Promise.all([...this.filling.values()]);
    for (const names of this.ready.values()) {
      for (const name of names.splice(0))
        await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(name)}`).catch(() => undefined);
    }
  }
}

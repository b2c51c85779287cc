import { randomBytes } from 'node:crypto';
import { SPARE_DB_PREFIX } from './naming.js';
import { ident, literal } from './sql.js';

type AdminQuery = (sql: string, params?: unknown[]) => Promise<unknown>;

/**
 * Copies of a template made ahead of time, so that provisioning an episode renames a spare (a catalog update)
 * instead of copying the template on the episode's critical path. Each process uses only the spares it made, so
 * two processes never race for one; spares leaked by a crashed process are dropped by the janitor.
 */
export class SpareDatabases {
  private readonly ready = new Map<string, string[]>();
  private readonly filling = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly adminQuery: AdminQuery,
    private readonly strategy: string,
    readonly perTemplate: number,
  ) {}

  /** A ready spare copy of the template, removed from the pool; undefined when none is ready. */
  take(template: string): string | undefined {
    const spare = this.ready.get(template)?.shift();
    this.refill(template);
    return spare;
  }

  /** Top the pool up in the background (one copy at a time, so it never floods the server). */
  refill(template: string): void {
    if (this.closed || this.perTemplate <= 0 || this.filling.has(template)) return;
    const run = (async () => {
      while (!this.closed && (this.ready.get(template)?.length ?? 0) < this.perTemplate) {
        const name = `${SPARE_DB_PREFIX}${randomBytes(8).toString('hex')}`;
        // closed to every connection until provisioning has granted it to its episode role (see EnvironmentBackend)
        await this.adminQuery(
          `CREATE DATABASE ${ident(name)} TEMPLATE ${ident(template)} STRATEGY ${this.strategy} ALLOW_CONNECTIONS false`,
        );
        await this.adminQuery(`REVOKE CONNECT, TEMPORARY ON DATABASE ${ident(name)} FROM PUBLIC;
          COMMENT ON DATABASE ${ident(name)} IS ${literal(JSON.stringify({ spareOf: template, createdAt: new Date().toISOString() }))}`);
        if (this.closed) {
          await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(name)}`);
          return;
        }
        const list = this.ready.get(template) ?? [];
        list.push(name);
        this.ready.set(template, list);
      }
    })()
      .catch(() => undefined) // a failed refill only costs speed: provisioning falls back to a direct copy
      .finally(() => this.filling.delete(template));
    this.filling.set(template, run);
  }

  /** Wait for the pools to be full (benchmarks and tests use this to measure the warm path). */
  async warm(template: string): Promise<void> {
    this.refill(template);
    await this.filling.get(template);
  }

  /** Stop refilling and drop every spare this process made. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.filling.values()]);
    for (const names of this.ready.values()) {
      for (const name of names.splice(0))
        await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(name)}`).catch(() => undefined);
    }
  }
}

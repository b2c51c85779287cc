import type { LoadedConfig } from '../schemas/config.js';
import type { AdminQuery } from './admin-pool.js';
import { endSessions, recycleEpisodeDatabase } from './database-recycler.js';
import { DropQueue } from './drop-queue.js';
import type { Episode } from './episode.js';
import type { LiveEpisodes } from './live-episodes.js';
import { retiredRoleName } from './naming.js';
import { asInfrastructureError, isStaleAttempt, sqlstateOf } from './pg-faults.js';
import { spareDatabaseName, type SpareDatabases } from './spare-databases.js';
import { ident, literal } from './sql.js';

/**
 * The end of an episode database: retired, closed, moved aside out of the episode's names, then reset into a spare or
 * dropped, in the background (two queues) or before teardown returns.
 */
export class EpisodeTeardown {
  private readonly drops = new DropQueue();
  /**
   * Resets have their own queue, two at a time: a reset is mostly round trips, a burst tears down as fast as it
   * provisions, and a drop (seconds on a busy disk) must not hold up the spares provisioning waits for.
   */
  private readonly resets = new DropQueue(2);

  constructor(
    private readonly config: LoadedConfig,
    private readonly adminQuery: AdminQuery,
    private readonly spares: SpareDatabases,
    private readonly live: LiveEpisodes,
    private readonly dropInBackground: boolean,
  ) {}

  /** Resolves once no drop or reset of this database name is pending (a provision of the name waits for it). */
  async settled(database: string): Promise<void> {
    await this.drops.settled(database);
    await this.resets.settled(database);
  }

  /** Waits while more than `max` drops are pending (see DropQueue.backpressure). */
  async backpressure(max: number): Promise<void> {
    await this.drops.backpressure(max);
  }

  /** Drop a spare in the background (one provisioning could not rename: the janitor may have dropped it meanwhile). */
  dropSpare(spare: string): void {
    void this.drops.enqueue(spare, async () => void (await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(spare)}`)));
  }

  /**
   * Retire the episode, close its connections, move its database and role aside (out of the episode's names) and drop
   * or reset them: in the background by default (see DropQueue), or before returning with `{ wait: true }`. An attempt
   * that no longer holds the episode (a newer attempt claimed it) only lets go of its connections: the database is the
   * newer attempt's.
   */
  async teardown(episode: Episode, options: { wait?: boolean } = {}): Promise<void> {
    let oid: number;
    try {
      oid = await this.retire(episode);
    } catch (err) {
      await this.detach(episode).catch(() => undefined);
      if (isStaleAttempt(err)) return;
      throw err;
    }
    await this.discard(episode, oid, options);
  }

  /** Mark the episode finished, if this handle still holds it; returns the database's oid (see internal-tables.ts). */
  private async retire(episode: Episode): Promise<number> {
    try {
      const res = await episode.pool.query<{ oid: number }>('SELECT public._finalstate_retire($1) AS oid', [
        episode.leaseToken,
      ]);
      return Number(res.rows[0]!.oid);
    } catch (err) {
      // nothing about the task can make this statement fail: the database or the attempt did
      throw asInfrastructureError(err, `retire ${episode.database}`);
    }
  }

  /**
   * Tear down a database this handle may dispose of (retired by it, or never claimed by anyone: a failed provision,
   * an outdated one). Its names are freed first, synchronously: the database (if it is still the one with `oid`) and
   * its role are renamed to names of their own, so that nothing done to them later can touch a database a newer
   * attempt provisions under the episode's name.
   */
  async discard(episode: Episode, oid: number | undefined, options: { wait?: boolean } = {}): Promise<void> {
    const template = this.live.release(episode);
    // Only a database this process provisioned is reused: a reattached one may come from another version or have
    // been changed by hand (the episode role cannot change the schema; a reset restores rows, not schema). Decided
    // now, not when the job runs: until then the pool counts this database as on its way back.
    const reserved =
      !episode.reattached && template !== undefined && this.spares.recycles && this.spares.reserve(template);
    await episode.pool.end().catch(() => undefined);
    let aside: { database: string; role: string } | undefined;
    try {
      aside = await this.moveAside(episode, oid);
    } catch (err) {
      if (reserved) this.spares.cancel(template);
      throw err;
    }
    if (!aside) {
      if (reserved) this.spares.cancel(template);
      return;
    }
    const moved = aside;
    const job = reserved
      ? this.resets.enqueue(moved.database, () => this.recycle({ ...episode, ...moved }, template))
      : this.drops.enqueue(moved.database, () => this.dropByName(moved.database, moved.role));
    if (options.wait || !this.dropInBackground) {
      await job;
      await this.flush();
    }
  }

  /**
   * Close the episode's database to connections, end its sessions and rename it and its role to fresh names, in one
   * transaction and only if the database under the episode's name is still the one with `oid`; undefined when it is
   * not there any more (another attempt dropped it).
   */
  private async moveAside(
    episode: Episode,
    oid: number | undefined,
  ): Promise<{ database: string; role: string } | undefined> {
    const { database, role } = episode;
    const present = await this.adminQuery<{ oid: number }>('SELECT oid FROM pg_database WHERE datname = $1', [
      database,
    ]);
    const found = present.rows[0] ? Number(present.rows[0].oid) : undefined;
    if (found === undefined || (oid !== undefined && found !== oid)) return undefined;
    // each step by name only while the name still holds this database: a newer attempt may have dropped it meanwhile
    const whileOurs = (onDatabase: string, onRole: string) => `DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = ${literal(database)} AND oid = ${found}) THEN
          RAISE EXCEPTION 'episode database % was replaced', ${literal(database)} USING ERRCODE = 'undefined_object';
        END IF;
        EXECUTE ${literal(onDatabase)};
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${literal(role)}) THEN EXECUTE ${literal(onRole)}; END IF;
      END $$`;
    const aside = { database: spareDatabaseName(), role: retiredRoleName() };
    try {
      await this.adminQuery(
        whileOurs(
          `ALTER DATABASE ${ident(database)} ALLOW_CONNECTIONS false`,
          `REVOKE ALL ON DATABASE ${ident(database)} FROM ${ident(role)}`,
        ),
      );
      await endSessions(this.adminQuery, database);
      await this.adminQuery(
        whileOurs(
          `ALTER DATABASE ${ident(database)} RENAME TO ${ident(aside.database)}`,
          `ALTER ROLE ${ident(role)} RENAME TO ${ident(aside.role)}`,
        ),
      );
    } catch (err) {
      if (sqlstateOf(err) === '42704') return undefined;
      throw err;
    }
    return aside;
  }

  /** Reset a torn-down episode database into a spare (see recycleEpisodeDatabase); if that fails, drop it. */
  private async recycle(episode: Episode, template: string): Promise<void> {
    let spare: string | undefined;
    try {
      spare = await recycleEpisodeDatabase(this.config, this.adminQuery, episode, template);
    } catch {
      this.spares.cancel(template);
      await this.dropByName(episode.database, episode.role); // what is left of it under the episode's name
      return;
    }
    if (!this.spares.put(template, spare)) await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(spare)}`);
  }

  /** Wait for every background drop and reset (and report a failed one). */
  async flush(): Promise<void> {
    await this.resets.flush();
    await this.drops.flush();
  }

  async dropByName(database: string, role: string): Promise<void> {
    await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`);
    await this.adminQuery(`DROP ROLE IF EXISTS ${ident(role)}`);
  }

  /** Release the episode's connections without dropping its database (a later attempt may reattach). */
  async detach(episode: Episode): Promise<void> {
    this.live.release(episode);
    await episode.pool.end();
  }
}

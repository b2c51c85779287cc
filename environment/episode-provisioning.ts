import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { LoadedConfig } from '../schemas/config.js';
import type { Task } from '../schemas/task.js';
import { UserError } from '../core/errors.js';
import { adminClient, type AdminQuery } from './admin-pool.js';
import type { BackendOptions } from './backend-options.js';
import type { DomainDefinition } from './domain.js';
import type { Episode, OpenOptions } from './episode.js';
import { episodePool, episodeTransaction } from './episode-connections.js';
import { claimLease } from './episode-lease.js';
import type { EpisodeRoles } from './episode-roles.js';
import type { EpisodeTeardown } from './episode-teardown.js';
import type { LiveEpisodes } from './live-episodes.js';
import type { DomainRegistry } from './registry.js';
import type { SpareDatabases } from './spare-databases.js';
import { ident, literal } from './sql.js';
import { applyTaskInit } from './task-init.js';
import { taskSha256 } from './task-set.js';
import { ensureTemplate, type TemplateInfo } from './template.js';

const SQLSTATE_DUPLICATE_DATABASE = '42P04';
const SQLSTATE_DUPLICATE_OBJECT = '42710';

/** How long provisioning waits for a spare that is being reset before it copies the template itself. */
const SPARE_WAIT_MS = 3000;

/**
 * A new episode database: a spare renamed into place, or a copy of its domain's template database, closed to every
 * connection until its role and grants are in place; then the task's init, and the episode claimed for the attempt.
 */
export class EpisodeProvisioning {
  private readonly templates = new Map<string, Promise<TemplateInfo>>();

  constructor(
    private readonly config: LoadedConfig,
    private readonly registry: DomainRegistry,
    private readonly options: BackendOptions,
    private readonly admin: pg.Pool,
    private readonly adminQuery: AdminQuery,
    private readonly roles: EpisodeRoles,
    private readonly spares: SpareDatabases,
    private readonly live: LiveEpisodes,
    private readonly teardown: EpisodeTeardown,
  ) {}

  async template(domain: DomainDefinition): Promise<TemplateInfo> {
    let pending = this.templates.get(domain.name);
    if (!pending) {
      pending = (async () => {
        await this.roles.ensureIsolation();
        if (this.options.reuse !== 'drop') this.spares.recycles = await this.roles.isSuperuser();
        const client = await adminClient(this.admin);
        try {
          return await ensureTemplate(this.config, client, domain);
        } finally {
          client.release();
        }
      })();
      this.templates.set(domain.name, pending);
      pending.catch(() => this.templates.delete(domain.name));
    }
    return pending;
  }

  async provision(episodeId: string, task: Task, options: OpenOptions = {}): Promise<Episode> {
    const domain = this.registry.get(task.domain);
    const template = await this.template(domain);
    const { database, role } = this.roles.names(episodeId);
    const strategy = this.options.strategy ?? 'WAL_LOG';
    await this.teardown.settled(database);
    await this.teardown.backpressure(this.options.maxPendingDrops ?? 8);
    // a spare on its way back from a reset is worth waiting for: a reset takes a fraction of a copy
    const spare = await this.spares.take(template.name, SPARE_WAIT_MS);
    // a role can survive an earlier attempt whose database was dropped: asked first, so that no CREATE ROLE fails
    // (asked while the spare is renamed: the two are independent, and each is a round trip)
    const roleExists = this.adminQuery('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]).then(
      (res) => Boolean(res.rowCount),
      (err: unknown) => err,
    );
    // a spare the janitor dropped meanwhile (an idle process keeps spares past the TTL) falls back to a direct copy
    const renamed =
      spare &&
      (await this.adminQuery(`ALTER DATABASE ${ident(spare)} RENAME TO ${ident(database)}`).then(
        () => true,
        () => false,
      ));
    if (spare && !renamed) this.teardown.dropSpare(spare);
    try {
      // closed to every connection until its grants are in place: a connection opened earlier would survive them
      if (!renamed)
        await this.adminQuery(
          `CREATE DATABASE ${ident(database)} TEMPLATE ${ident(template.name)} STRATEGY ${strategy} ALLOW_CONNECTIONS false`,
        );
    } catch (err) {
      if ((err as { code?: string }).code === SQLSTATE_DUPLICATE_DATABASE) {
        throw new UserError(`episode ${episodeId}: database ${database} already exists; use open() to reattach`);
      }
      throw err;
    }
    await this.grant(episodeId, database, role, roleExists);
    const episode = this.handle(episodeId, task, database, role, template, false, options.attempt);
    if (renamed) this.live.fromSpare(episode);
    try {
      await this.initialise(episode);
    } catch (err) {
      await this.teardown.discard(episode, undefined, { wait: true }).catch(() => undefined);
      throw err;
    }
    return episode;
  }

  /**
   * Create (or restore) the episode's role and open its new database to it alone; on failure the database and role
   * are dropped.
   */
  private async grant(episodeId: string, database: string, role: string, roleExists: Promise<unknown>): Promise<void> {
    // the janitor's marker: when, and nothing that names the episode (every role can read database comments)
    const marker = JSON.stringify({ createdAt: new Date().toISOString() });
    const grants = `REVOKE CONNECT, TEMPORARY ON DATABASE ${ident(database)} FROM PUBLIC;
      GRANT CONNECT ON DATABASE ${ident(database)} TO ${ident(role)};
      COMMENT ON DATABASE ${ident(database)} IS ${literal(marker)};
      ALTER DATABASE ${ident(database)} ALLOW_CONNECTIONS true`;
    try {
      const exists = await roleExists;
      if (typeof exists !== 'boolean') throw exists;
      await this.adminQuery(`${this.roles.roleSql(episodeId, role, database, exists)}; ${grants}`).catch(
        async (err: { code?: string }) => {
          if (err.code !== SQLSTATE_DUPLICATE_OBJECT) throw err;
          await this.adminQuery(`${this.roles.roleSql(episodeId, role, database, true)}; ${grants}`);
        },
      );
    } catch (err) {
      await this.teardown.dropByName(database, role).catch(() => undefined);
      throw err;
    }
  }

  /** A live handle on an episode database, counted against its template (see LiveEpisodes). */
  handle(
    episodeId: string,
    task: Task,
    database: string,
    role: string,
    template: TemplateInfo,
    reattached: boolean,
    attempt: number | undefined,
  ): Episode {
    const domain = this.registry.get(task.domain);
    const { recorderToken, password } = this.roles.credentials(episodeId);
    const episode: Episode = {
      episodeId,
      database,
      role,
      recorderToken,
      leaseToken: `${recorderToken}.${randomBytes(16).toString('hex')}`,
      attempt,
      domain,
      task,
      taskSha256: taskSha256(task),
      clock: new Date(task.now),
      catalog: template.catalog,
      pool: episodePool(this.config, { database, role, password }, this.options.episodeConnections ?? 2),
      reattached,
    };
    this.live.add(episode, template.name);
    return episode;
  }

  private async initialise(episode: Episode): Promise<void> {
    await episodeTransaction(episode, async (client) => {
      await client.query('SELECT public._finalstate_init_episode($1, $2, $3, $4, $5)', [
        episode.recorderToken,
        episode.episodeId,
        episode.task.id,
        episode.taskSha256,
        episode.clock,
      ]);
      await claimLease(client, episode);
      await applyTaskInit(client, episode.task, episode.catalog);
    });
  }
}

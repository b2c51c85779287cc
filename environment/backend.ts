import type pg from 'pg';
import type { LoadedConfig } from '../schemas/config.js';
import type { Task } from '../schemas/task.js';
import { UserError } from '../core/errors.js';
import { adminQueryOf, openAdminPool } from './admin-pool.js';
import type { BackendOptions } from './backend-options.js';
import type { DomainDefinition } from './domain.js';
import type { Episode, OpenOptions } from './episode.js';
import { connectEpisode, episodeTransaction } from './episode-connections.js';
import { underLease } from './episode-lease.js';
import { EpisodeProvisioning } from './episode-provisioning.js';
import { EpisodeReattach } from './episode-reattach.js';
import { EpisodeRoles } from './episode-roles.js';
import { EpisodeTeardown } from './episode-teardown.js';
import { LiveEpisodes } from './live-episodes.js';
import type { EpisodeNames } from './naming.js';
import type { DomainRegistry } from './registry.js';
import { SpareDatabases } from './spare-databases.js';
import type { TemplateInfo } from './template.js';

export type { BackendOptions, CopyStrategy } from './backend-options.js';
export type { Episode, OpenOptions } from './episode.js';

/**
 * Provisions, reattaches and tears down episode databases. Each episode database is a copy of its domain's template
 * database plus the task's init; it accepts connections only from the episode's own login role. All connections are
 * pooled and bounded: one admin pool, one small pool per live episode. The work is done by its parts: the roles
 * (episode-roles.ts), provisioning and spares (episode-provisioning.ts, spare-databases.ts), reattaching
 * (episode-reattach.ts), the lease (episode-lease.ts) and teardown (episode-teardown.ts).
 */
export class EnvironmentBackend {
  readonly admin: pg.Pool;
  private readonly roles: EpisodeRoles;
  private readonly spares: SpareDatabases;
  private readonly live: LiveEpisodes;
  private readonly teardowns: EpisodeTeardown;
  private readonly provisioning: EpisodeProvisioning;
  private readonly reattach: EpisodeReattach;

  constructor(
    readonly config: LoadedConfig,
    readonly registry: DomainRegistry,
    readonly options: BackendOptions = {},
  ) {
    this.admin = openAdminPool(config, options.adminConnections ?? 5);
    const adminQuery = adminQueryOf(this.admin);
    this.spares = new SpareDatabases(
      adminQuery,
      options.strategy ?? 'WAL_LOG',
      options.sparesPerTemplate ?? { max: config.workers.episodeConcurrency },
    );
    const { connectionLimit } = config.postgres.episodeBounds;
    const poolSize = options.episodeConnections ?? 2;
    if (poolSize > connectionLimit) {
      throw new UserError(
        `config: postgres.episodeBounds.connectionLimit (${connectionLimit}) is below the episode pool size (${poolSize}); raise it`,
      );
    }
    this.roles = new EpisodeRoles(config, adminQuery);
    this.live = new LiveEpisodes(this.spares);
    this.teardowns = new EpisodeTeardown(
      config,
      adminQuery,
      this.spares,
      this.live,
      options.dropInBackground !== false,
    );
    this.provisioning = new EpisodeProvisioning(
      config,
      registry,
      options,
      this.admin,
      adminQuery,
      this.roles,
      this.spares,
      this.live,
      this.teardowns,
    );
    this.reattach = new EpisodeReattach(registry, adminQuery, this.roles, this.provisioning, this.live, this.teardowns);
  }

  /** The episode's database and role names, from the stack's key: what a retried attempt reattaches to. */
  names(episodeId: string): EpisodeNames {
    return this.roles.names(episodeId);
  }

  template(domain: DomainDefinition): Promise<TemplateInfo> {
    return this.provisioning.template(domain);
  }

  /**
   * Provision the episode's database, or reattach to it when an earlier attempt of the same episode id already
   * provisioned it completely (a half-provisioned one is dropped and provisioned again).
   */
  async open(episodeId: string, task: Task, options: OpenOptions = {}): Promise<Episode> {
    const existing = await this.attach(episodeId, task, options);
    if (existing) return existing;
    return this.provision(episodeId, task, options);
  }

  provision(episodeId: string, task: Task, options: OpenOptions = {}): Promise<Episode> {
    return this.provisioning.provision(episodeId, task, options);
  }

  /** See EpisodeReattach.attach: the episode's database claimed for this attempt, or undefined when there is none. */
  attach(episodeId: string, task: Task, options: OpenOptions = {}): Promise<Episode | undefined> {
    return this.reattach.attach(episodeId, task, options);
  }

  /** See underLease: `fn` runs while this attempt holds the episode; a stale attempt gets a StaleAttemptError. */
  underLease<T>(episode: Episode, fn: () => Promise<T>): Promise<T> {
    return underLease(episode, fn);
  }

  /** See episodeTransaction. */
  transaction<T>(episode: Episode, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    return episodeTransaction(episode, fn, begin);
  }

  /** See connectEpisode: a client of the episode's pool, its session reset to the runtime's startup options. */
  connect(episode: Episode): Promise<pg.PoolClient> {
    return connectEpisode(episode);
  }

  /** See EpisodeTeardown.teardown. */
  teardown(episode: Episode, options: { wait?: boolean } = {}): Promise<void> {
    return this.teardowns.teardown(episode, options);
  }

  /** Wait for every background drop and reset (and report a failed one). */
  flushDrops(): Promise<void> {
    return this.teardowns.flush();
  }

  /** Fill the spare pool of a domain's template now, for `episodes` at once (benchmarks measure the warm path with this). */
  async warmSpares(domain: DomainDefinition, episodes?: number): Promise<void> {
    await this.spares.warm((await this.template(domain)).name, episodes);
  }

  dropByName(database: string, role: string): Promise<void> {
    return this.teardowns.dropByName(database, role);
  }

  /** Tear down every episode this backend still holds, then close the admin pool. */
  async close(): Promise<void> {
    for (const episode of this.live.all()) await this.teardown(episode).catch(() => undefined);
    await this.spares.close();
    await this.flushDrops().catch(() => undefined);
    await this.admin.end();
  }

  /** Release the episode's connections without dropping its database (a later attempt may reattach). */
  detach(episode: Episode): Promise<void> {
    return this.teardowns.detach(episode);
  }
}

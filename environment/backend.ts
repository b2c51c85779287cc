import pg from 'pg';
import type { LoadedConfig } from '../schemas/config.js';
import { UserError } from '../core/errors.js';
import { connectionConfig } from './connection.js';
import type { Task } from '../schemas/task.js';
import { taskSha256 } from './task-set.js';
import type { DatabaseCatalog } from './catalog.js';
import type { DomainDefinition } from './domain.js';
import { applyTaskInit } from './task-init.js';
import { episodeCredentials, scramVerifier, stackKey, type EpisodeCredentials } from './episode-credentials.js';
import { episodeDatabaseName, episodeRoleName, EPISODE_GROUP_ROLE } from './naming.js';
import { asInfrastructureError, isInfrastructureFault, surviveServerLoss } from './pg-faults.js';
import type { DomainRegistry } from './registry.js';
import { ident, literal } from './sql.js';
import { ensureTemplate, type TemplateInfo } from './template.js';
import { SpareDatabases } from './spare-databases.js';
import { recycleEpisodeDatabase } from './database-recycler.js';
import { DropQueue } from './drop-queue.js';

export type CopyStrategy = 'WAL_LOG' | 'FILE_COPY';

export interface BackendOptions {
  /** How CREATE DATABASE copies the template; WAL_LOG measured faster for small templates (see bench). */
  strategy?: CopyStrategy;
  /**
   * Connections of the shared admin pool (CREATE/DROP DATABASE, roles, resets); default 5, so that the two background
   * jobs (drops, resets) leave provisioning three.
   */
  adminConnections?: number;
  /** Connections of each episode's pool (tool calls are serialised per episode, so 1-2 is enough). */
  episodeConnections?: number;
  /**
   * Template copies kept ready per domain (0: copy on the critical path). Default: as many as the domain's peak of
   * live episodes in this process, up to `workers.episodeConcurrency`.
   */
  sparesPerTemplate?: number;
  /**
   * What teardown does with an episode database: `reset` it to its template's state and keep it as a spare (the
   * default; it takes a superuser admin, else teardown drops), or `drop` it. See docs/ARCHITECTURE.md, Backends.
   */
  reuse?: 'reset' | 'drop';
  /** Drop torn-down databases in the background (default) or before teardown() returns. */
  dropInBackground?: boolean;
  /** Background drops allowed to pile up before provisioning waits for them (default 8). */
  maxPendingDrops?: number;
}

/** One episode's live backend: its own database, reached only through its own login role. */
export interface Episode {
  episodeId: string;
  database: string;
  role: string;
  /** Passed (as a bind parameter) to the functions that write the internal tables; see internal-tables.ts. */
  recorderToken: string;
  domain: DomainDefinition;
  task: Task;
  taskSha256: string;
  /** The fixed clock of the episode (task.now). */
  clock: Date;
  catalog: DatabaseCatalog;
  pool: pg.Pool;
  /** True when this handle reattached to a database an earlier attempt provisioned. */
  reattached: boolean;
}

const SQLSTATE_DUPLICATE_DATABASE = '42P04';
const SQLSTATE_DUPLICATE_OBJECT = '42710';
const SQLSTATE_INSUFFICIENT_PRIVILEGE = '42501';

/** How long provisioning waits for a spare that is being reset before it copies the template itself. */
const SPARE_WAIT_MS = 3000;

/** Databases every cluster has, which PUBLIC may connect to unless revoked. */
const SHARED_DATABASES = ['postgres', 'template1'];

/**
 * Provisions, reattaches and tears down episode databases. Each episode database is a copy of its domain's template
 * database plus the task's init; it accepts connections only from the episode's own login role. All connections are
 * pooled and bounded: one admin pool, one small pool per live episode.
 */
export class EnvironmentBackend {
  readonly admin: pg.Pool;
  private readonly templates = new Map<string, Promise<TemplateInfo>>();
  private readonly live = new Set<Episode>();
  /** The template of each live episode, and how many live episodes each template has (the spare pool grows to it). */
  private readonly liveTemplates = new Map<Episode, string>();
  private readonly liveCounts = new Map<string, number>();
  /** Live episodes whose database came from the spare pool. */
  private readonly pooled = new WeakSet<Episode>();
  private superuser?: Promise<boolean>;
  private isolationChecked?: Promise<void>;
  private readonly spares: SpareDatabases;
  private readonly drops = new DropQueue();
  /**
   * Resets have their own queue, two at a time: a reset is mostly round trips, a burst tears down as fast as it
   * provisions, and a drop (seconds on a busy disk) must not hold up the spares provisioning waits for.
   */
  private readonly resets = new DropQueue(2);
  private key?: Buffer;

  constructor(
    readonly config: LoadedConfig,
    readonly registry: DomainRegistry,
    readonly options: BackendOptions = {},
  ) {
    this.admin = new pg.Pool({
      ...connectionConfig(config),
      max: options.adminConnections ?? 5,
      idleTimeoutMillis: 10_000,
      connectionTimeoutMillis: 10_000,
    });
    this.admin.on('error', () => undefined); // an idle client's socket error surfaces on the next query instead
    this.spares = new SpareDatabases(
      (sql, params) => this.adminQuery(sql, params),
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
  }

  /** From the stack's key (never from a configured password), so a retried attempt in another process derives the same. */
  private credentials(episodeId: string): EpisodeCredentials {
    this.key ??= stackKey(this.config.dataPath);
    return episodeCredentials(this.key, episodeId);
  }

  /**
   * The role's login, password (as a SCRAM verifier: no statement or log line ever holds a password) and connection
   * limit as the runtime wants them, and none of the settings the role may have given itself with ALTER ROLE: an
   * episode role can change its own password and defaults, and a reattach must not depend on what it did.
   */
  private roleSql(episodeId: string, role: string, database: string, exists: boolean): string {
    const { connectionLimit } = this.config.postgres.episodeBounds;
    const login = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${literal(scramVerifier(this.credentials(episodeId).password))} CONNECTION LIMIT ${connectionLimit}`;
    if (!exists) return `CREATE ROLE ${ident(role)} ${login} IN ROLE ${ident(EPISODE_GROUP_ROLE)}`;
    return `ALTER ROLE ${ident(role)} ${login}; ALTER ROLE ${ident(role)} RESET ALL; ALTER ROLE ${ident(role)} IN DATABASE ${ident(database)} RESET ALL`;
  }

  private async adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.admin.query<R>(sql, params);
    } catch (err) {
      if (isInfrastructureFault(err)) throw asInfrastructureError(err, 'admin connection');
      throw err;
    }
  }

  async template(domain: DomainDefinition): Promise<TemplateInfo> {
    let pending = this.templates.get(domain.name);
    if (!pending) {
      pending = (async () => {
        await this.ensureIsolation();
        if (this.options.reuse !== 'drop') this.spares.recycles = await this.isSuperuser();
        const client = surviveServerLoss(
          await this.admin.connect().catch((err) => {
            throw asInfrastructureError(err, 'admin connection');
          }),
        );
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

  /**
   * Every database is connectable by PUBLIC unless revoked. Episode databases and templates revoke it themselves;
   * here the shared ones (maintenance, template1 and control) do, so an episode role reaches nothing else.
   */
  private ensureIsolation(): Promise<void> {
    this.isolationChecked ??= (async () => {
      const names = [...new Set([...SHARED_DATABASES, this.config.postgres.database])];
      const found = await this.adminQuery('SELECT datname FROM pg_database WHERE datname = ANY($1)', [names]);
      for (const { datname } of found.rows as { datname: string }[]) {
        // on a managed server we may not own these databases: episode databases still admit only their own role
        await this.adminQuery(`REVOKE CONNECT, TEMPORARY ON DATABASE ${ident(datname)} FROM PUBLIC`).catch(
          (err: { code?: string }) => {
            if (err.code !== SQLSTATE_INSUFFICIENT_PRIVILEGE) throw err;
          },
        );
      }
    })();
    return this.isolationChecked;
  }

  private episodePool(episodeId: string, database: string, role: string): pg.Pool {
    const base = connectionConfig(this.config, database);
    const { password } = this.credentials(episodeId);
    const credentials = base.connectionString
      ? { connectionString: withUser(base.connectionString, role, password) }
      : { user: role, password };
    const pool = new pg.Pool({
      ...base,
      ...credentials,
      max: this.options.episodeConnections ?? 2,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 10_000,
      options: sessionOptions(this.config),
    });
    pool.on('error', () => undefined);
    return pool;
  }

  /**
   * Provision the episode's database, or reattach to it when an earlier attempt of the same episode id already
   * provisioned it completely (a half-provisioned one is dropped and provisioned again).
   */
  async open(episodeId: string, task: Task): Promise<Episode> {
    const existing = await this.attach(episodeId, task);
    if (existing) return existing;
    return this.provision(episodeId, task);
  }

  async provision(episodeId: string, task: Task): Promise<Episode> {
    const domain = this.registry.get(task.domain);
    const template = await this.template(domain);
    const database = episodeDatabaseName(episodeId);
    const role = episodeRoleName(episodeId);
    const strategy = this.options.strategy ?? 'WAL_LOG';
    await this.drops.settled(database);
    await this.resets.settled(database);
    await this.drops.backpressure(this.options.maxPendingDrops ?? 8);
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
    if (spare && !renamed)
      void this.drops.enqueue(
        spare,
        async () => void (await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(spare)}`)),
      );
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
    // the janitor's marker: when, and nothing that names the episode (every role can read database comments)
    const marker = JSON.stringify({ createdAt: new Date().toISOString() });
    const grants = `REVOKE CONNECT, TEMPORARY ON DATABASE ${ident(database)} FROM PUBLIC;
      GRANT CONNECT ON DATABASE ${ident(database)} TO ${ident(role)};
      COMMENT ON DATABASE ${ident(database)} IS ${literal(marker)};
      ALTER DATABASE ${ident(database)} ALLOW_CONNECTIONS true`;
    try {
      const exists = await roleExists;
      if (typeof exists !== 'boolean') throw exists;
      await this.adminQuery(`${this.roleSql(episodeId, role, database, exists)}; ${grants}`).catch(
        async (err: { code?: string }) => {
          if (err.code !== SQLSTATE_DUPLICATE_OBJECT) throw err;
          await this.adminQuery(`${this.roleSql(episodeId, role, database, true)}; ${grants}`);
        },
      );
    } catch (err) {
      await this.dropByName(database, role).catch(() => undefined);
      throw err;
    }
    const episode = this.handle(episodeId, task, database, role, template, false);
    if (renamed) this.pooled.add(episode);
    try {
      await this.initialise(episode);
    } catch (err) {
      await this.teardown(episode, { wait: true }).catch(() => undefined);
      throw err;
    }
    return episode;
  }

  private handle(
    episodeId: string,
    task: Task,
    database: string,
    role: string,
    template: TemplateInfo,
    reattached: boolean,
  ): Episode {
    const domain = this.registry.get(task.domain);
    const episode: Episode = {
      episodeId,
      database,
      role,
      recorderToken: this.credentials(episodeId).recorderToken,
      domain,
      task,
      taskSha256: taskSha256(task),
      clock: new Date(task.now),
      catalog: template.catalog,
      pool: this.episodePool(episodeId, database, role),
      reattached,
    };
    this.live.add(episode);
    this.liveTemplates.set(episode, template.name);
    const count = (this.liveCounts.get(template.name) ?? 0) + 1;
    this.liveCounts.set(template.name, count);
    this.spares.live(template.name, count);
    return episode;
  }

  /** Forget a live episode; returns its template's name. */
  private release(episode: Episode): string | undefined {
    this.live.delete(episode);
    const template = this.liveTemplates.get(episode);
    this.liveTemplates.delete(episode);
    if (template) {
      this.liveCounts.set(template, (this.liveCounts.get(template) ?? 1) - 1);
      if (this.pooled.delete(episode)) this.spares.returned(template);
    }
    return template;
  }

  private async initialise(episode: Episode): Promise<void> {
    await this.transaction(episode, async (client) => {
      await client.query('SELECT public._finalstate_init_episode($1, $2, $3, $4, $5)', [
        episode.recorderToken,
        episode.episodeId,
        episode.task.id,
        episode.taskSha256,
        episode.clock,
      ]);
      await applyTaskInit(client, episode.task, episode.catalog);
    });
  }

  /** Run `fn` in one transaction on the episode database (`begin` chooses isolation / read-only). */
  async transaction<T>(episode: Episode, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.connect(episode);
    try {
      await client.query(begin);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** A client of the episode's pool; a connection failure is an infrastructure error. */
  async connect(episode: Episode): Promise<pg.PoolClient> {
    try {
      return surviveServerLoss(await episode.pool.connect());
    } catch (err) {
      throw asInfrastructureError(err, `connect to episode database ${episode.database}`);
    }
  }

  /** Reattach to a completely provisioned episode database; undefined when there is none (or a half-built one, dropped). */
  async attach(episodeId: string, task: Task): Promise<Episode | undefined> {
    const database = episodeDatabaseName(episodeId);
    const role = episodeRoleName(episodeId);
    const found = await this.adminQuery<{ open: boolean; role: boolean }>(
      'SELECT datallowconn AS open, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $2) AS role FROM pg_database WHERE datname = $1',
      [database, role],
    );
    const state = found.rows[0];
    if (!state) return undefined;
    const domain = this.registry.get(task.domain);
    const template = await this.template(domain);
    // still closed: its provisioning stopped before the grants; without its role: half torn down. Either way rebuilt.
    if (state.open && state.role) await this.adminQuery(this.roleSql(episodeId, role, database, true));
    const episode = state.open && state.role ? this.handle(episodeId, task, database, role, template, true) : undefined;
    let recorded: { task_sha256: string } | undefined;
    if (episode) {
      try {
        // a database provisioned before the internal-table functions existed cannot record calls: rebuilt like a half-built one
        recorded = (
          await episode.pool.query<{ task_sha256: string; current: boolean }>(
            "SELECT task_sha256, to_regproc('public._finalstate_record_call') IS NOT NULL AS current FROM _finalstate_episode",
          )
        ).rows.find((row) => row.current);
      } catch (err) {
        // an outage is retried by the caller; any other failure means the database is not a usable episode
        if (isInfrastructureFault(err)) {
          await this.detach(episode);
          throw asInfrastructureError(err, `reattach to ${database}`);
        }
      }
    }
    if (!episode || !recorded) {
      if (episode) await this.teardown(episode);
      else await this.dropByName(database, role);
      return undefined;
    }
    if (recorded.task_sha256 !== episode.taskSha256) {
      this.release(episode);
      await episode.pool.end();
      throw new UserError(
        `episode ${episodeId}: its database ${database} was provisioned for a different task content (${recorded.task_sha256.slice(0, 12)})`,
      );
    }
    return episode;
  }

  /**
   * Close the episode's connections and drop its database and role: in the background by default (see DropQueue),
   * or before returning with `{ wait: true }`.
   */
  async teardown(episode: Episode, options: { wait?: boolean } = {}): Promise<void> {
    const template = this.release(episode);
    // Only a database this process provisioned is reused: a reattached one may come from another version or have
    // been changed by hand (the episode role cannot change the schema; a reset restores rows, not schema). Decided
    // now, not when the job runs: until then the pool counts this database as on its way back.
    const reserved =
      !episode.reattached && template !== undefined && this.spares.recycles && this.spares.reserve(template);
    await episode.pool.end().catch(() => undefined);
    const job = reserved
      ? this.resets.enqueue(episode.database, () => this.recycle(episode, template))
      : this.drops.enqueue(episode.database, () => this.dropByName(episode.database, episode.role));
    if (options.wait || this.options.dropInBackground === false) {
      await job;
      await this.flushDrops();
    }
  }

  /** Reset a torn-down episode database into a spare (see recycleEpisodeDatabase); if that fails, drop it. */
  private async recycle(episode: Episode, template: string): Promise<void> {
    let spare: string | undefined;
    try {
      spare = await recycleEpisodeDatabase(
        this.config,
        (sql, params) => this.adminQuery(sql, params),
        episode,
        template,
      );
    } catch {
      this.spares.cancel(template);
      await this.dropByName(episode.database, episode.role); // what is left of it under the episode's name
      return;
    }
    if (!this.spares.put(template, spare)) await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(spare)}`);
  }

  /** A reset copies raw rows back with triggers off (session_replication_role), which takes a superuser. */
  private isSuperuser(): Promise<boolean> {
    this.superuser ??= this.adminQuery<{ rolsuper: boolean }>(
      'SELECT rolsuper FROM pg_roles WHERE rolname = current_user',
    ).then(
      (res) => res.rows[0]?.rolsuper === true,
      () => {
        this.superuser = undefined; // asked again next time
        return false;
      },
    );
    return this.superuser;
  }

  /** Wait for every background drop and reset (and report a failed one). */
  async flushDrops(): Promise<void> {
    await this.resets.flush();
    await this.drops.flush();
  }

  /** Fill the spare pool of a domain's template now, for `episodes` at once (benchmarks measure the warm path with this). */
  async warmSpares(domain: DomainDefinition, episodes?: number): Promise<void> {
    await this.spares.warm((await this.template(domain)).name, episodes);
  }

  async dropByName(database: string, role: string): Promise<void> {
    await this.adminQuery(`DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`);
    await this.adminQuery(`DROP ROLE IF EXISTS ${ident(role)}`);
  }

  /** Tear down every episode this backend still holds, then close the admin pool. */
  async close(): Promise<void> {
    for (const episode of [...this.live]) await this.teardown(episode).catch(() => undefined);
    await this.spares.close();
    await this.flushDrops().catch(() => undefined);
    await this.admin.end();
  }

  /** Release the episode's connections without dropping its database (a later attempt may reattach). */
  async detach(episode: Episode): Promise<void> {
    this.release(episode);
    await episode.pool.end();
  }
}

/**
 * Startup options of every episode session. Client options outrank the defaults a role can give itself (ALTER ROLE
 * self SET), so the settings the runtime depends on (text formats, writable transactions, the search path) and the
 * configured bounds hold on every connection; a reattach also clears those defaults.
 */
function sessionOptions(config: LoadedConfig): string {
  const { statementTimeoutMs, idleInTransactionTimeoutMs, lockTimeoutMs } = config.postgres.episodeBounds;
  const settings: Record<string, string | number> = {
    TimeZone: 'UTC',
    DateStyle: 'ISO,MDY',
    IntervalStyle: 'postgres',
    extra_float_digits: 1,
    bytea_output: 'hex',
    search_path: 'public',
    default_transaction_read_only: 'off',
    default_transaction_isolation: 'read\\ committed',
    statement_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: idleInTransactionTimeoutMs,
    lock_timeout: lockTimeoutMs,
  };
  return Object.entries(settings)
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
}

function withUser(connectionString: string, user: string, password: string): string {
  const url = new URL(connectionString);
  url.username = encodeURIComponent(user);
  url.password = encodeURIComponent(password);
  return url.toString();
}

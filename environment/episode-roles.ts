import type { LoadedConfig } from '../schemas/config.js';
import type { AdminQuery } from './admin-pool.js';
import { episodeCredentials, scramVerifier, stackKey, type EpisodeCredentials } from './episode-credentials.js';
import { sessionBounds } from './episode-connections.js';
import { episodeNames, EPISODE_GROUP_ROLE, type EpisodeNames } from './naming.js';
import { ident, literal } from './sql.js';

const SQLSTATE_INSUFFICIENT_PRIVILEGE = '42501';

/** Databases every cluster has, which PUBLIC may connect to unless revoked. */
const SHARED_DATABASES = ['postgres', 'template1'];

/**
 * The roles the backend deals in: each episode's login role (its names and credentials, derived from the stack's key,
 * and the SQL that creates or restores it), PUBLIC (shut out of the shared databases), and the admin's own.
 */
export class EpisodeRoles {
  private key?: Buffer;
  private superuser?: Promise<boolean>;
  private isolationChecked?: Promise<void>;

  constructor(
    private readonly config: LoadedConfig,
    private readonly adminQuery: AdminQuery,
  ) {}

  /** From the stack's key (never from a configured password), so a retried attempt in another process derives the same. */
  credentials(episodeId: string): EpisodeCredentials {
    this.key ??= stackKey(this.config.dataPath);
    return episodeCredentials(this.key, episodeId);
  }

  /** The episode's database and role names, from the stack's key: what a retried attempt reattaches to. */
  names(episodeId: string): EpisodeNames {
    this.key ??= stackKey(this.config.dataPath);
    return episodeNames(this.key, episodeId);
  }

  /**
   * The role's login, password (as a SCRAM verifier: no statement or log line ever holds a password), connection
   * limit and session bounds as the runtime wants them, and none of the settings the role may have given itself with
   * ALTER ROLE: an episode role can change its own password and defaults, and a reattach must not depend on what it
   * did. The bounds are the role's own defaults, so that every session of it is bounded, one opened with its
   * credentials alone (outside the runtime's pool) included.
   */
  roleSql(episodeId: string, role: string, database: string, exists: boolean): string {
    const { connectionLimit } = this.config.postgres.episodeBounds;
    const login = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${literal(scramVerifier(this.credentials(episodeId).password))} CONNECTION LIMIT ${connectionLimit}`;
    const bounds = Object.entries(sessionBounds(this.config))
      .map(([name, value]) => `ALTER ROLE ${ident(role)} SET ${name} = ${value}`)
      .join('; ');
    if (!exists) return `CREATE ROLE ${ident(role)} ${login} IN ROLE ${ident(EPISODE_GROUP_ROLE)}; ${bounds}`;
    return `ALTER ROLE ${ident(role)} ${login}; ALTER ROLE ${ident(role)} RESET ALL; ALTER ROLE ${ident(role)} IN DATABASE ${ident(database)} RESET ALL; ${bounds}`;
  }

  /**
   * Every database is connectable by PUBLIC unless revoked. Episode databases and templates revoke it themselves;
   * here the shared ones (maintenance, template1 and control) do, so an episode role reaches nothing else.
   */
  ensureIsolation(): Promise<void> {
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

  /** A reset copies raw rows back with triggers off (session_replication_role), which takes a superuser. */
  isSuperuser(): Promise<boolean> {
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
}

import type { Task } from '../schemas/task.js';
import { UserError } from '../core/errors.js';
import type { AdminQuery } from './admin-pool.js';
import type { Episode, OpenOptions } from './episode.js';
import { claimLease } from './episode-lease.js';
import type { EpisodeProvisioning } from './episode-provisioning.js';
import type { EpisodeRoles } from './episode-roles.js';
import type { EpisodeTeardown } from './episode-teardown.js';
import type { LiveEpisodes } from './live-episodes.js';
import {
  asInfrastructureError,
  isInfrastructureFault,
  isStaleAttempt,
  RETIRED_EPISODE_SQLSTATE,
  sqlstateOf,
  StaleAttemptError,
} from './pg-faults.js';
import type { DomainRegistry } from './registry.js';

/**
 * How long a reattach waits for a finished episode's database to leave its name (the finishing attempt moves it aside
 * right after retiring it) before it takes the attempt for dead and drops the database itself.
 */
const RETIRED_WAIT_MS = 10_000;

/**
 * A retried attempt's way back to its episode's database: the same names, derived again, lead to it; a complete one
 * is claimed for the attempt (an older attempt than the holder's is refused), anything else is cleared away.
 */
export class EpisodeReattach {
  constructor(
    private readonly registry: DomainRegistry,
    private readonly adminQuery: AdminQuery,
    private readonly roles: EpisodeRoles,
    private readonly provisioning: EpisodeProvisioning,
    private readonly live: LiveEpisodes,
    private readonly teardown: EpisodeTeardown,
  ) {}

  /**
   * Reattach to a completely provisioned episode database and claim it for this attempt; undefined when there is none
   * (or a half-built one, dropped; or one an earlier attempt finished, once it has left its name). An attempt older
   * than the one holding the database gets a StaleAttemptError.
   */
  async attach(episodeId: string, task: Task, options: OpenOptions = {}): Promise<Episode | undefined> {
    const { database, role } = this.roles.names(episodeId);
    const found = await this.adminQuery<{ oid: number; open: boolean; role: boolean }>(
      'SELECT oid, datallowconn AS open, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $2) AS role FROM pg_database WHERE datname = $1',
      [database, role],
    );
    const state = found.rows[0];
    if (!state) return undefined;
    const domain = this.registry.get(task.domain);
    const template = await this.provisioning.template(domain);
    // still closed: its provisioning stopped before the grants; without its role: half torn down. Either way rebuilt.
    if (state.open && state.role) await this.adminQuery(this.roles.roleSql(episodeId, role, database, true));
    const episode =
      state.open && state.role
        ? this.provisioning.handle(episodeId, task, database, role, template, true, options.attempt)
        : undefined;
    let recorded: { task_sha256: string } | undefined;
    if (episode) {
      try {
        // a database provisioned before the internal-table functions existed cannot record calls: rebuilt like a half-built one
        recorded = (
          await episode.pool.query<{ task_sha256: string; current: boolean }>(
            "SELECT task_sha256, to_regproc('public._finalstate_record_call') IS NOT NULL AND to_regproc('public._finalstate_claim') IS NOT NULL AS current FROM _finalstate_episode",
          )
        ).rows.find((row) => row.current);
      } catch (err) {
        // an outage is retried by the caller; any other failure means the database is not a usable episode
        if (isInfrastructureFault(err)) {
          await this.teardown.detach(episode);
          throw asInfrastructureError(err, `reattach to ${database}`);
        }
      }
    }
    if (!episode || !recorded) {
      if (episode) await this.teardown.discard(episode, state.oid);
      else await this.teardown.dropByName(database, role);
      return undefined;
    }
    if (recorded.task_sha256 !== episode.taskSha256) {
      this.live.release(episode);
      await episode.pool.end();
      throw new UserError(
        `episode ${episodeId}: its database ${database} was provisioned for a different task content (${recorded.task_sha256.slice(0, 12)})`,
      );
    }
    try {
      await claimLease(episode.pool, episode);
    } catch (err) {
      await this.teardown.detach(episode).catch(() => undefined);
      if (sqlstateOf(err) === RETIRED_EPISODE_SQLSTATE) {
        await this.awaitRetired(database, role, state.oid);
        return undefined;
      }
      if (isStaleAttempt(err)) throw new StaleAttemptError(`episode ${episodeId}: ${(err as Error).message}`);
      throw asInfrastructureError(err, `claim ${database}`);
    }
    return episode;
  }

  /**
   * Wait until a database an earlier attempt retired has left the episode's name (its teardown moves it aside at
   * once); past RETIRED_WAIT_MS that attempt is taken for dead and the database is dropped here, if it is still the
   * same one (by oid: a slow teardown that moves it later finds its name taken by nothing it knows).
   */
  private async awaitRetired(database: string, role: string, oid: number): Promise<void> {
    const deadline = Date.now() + RETIRED_WAIT_MS;
    const stillThere = async () =>
      Boolean(
        (await this.adminQuery('SELECT 1 FROM pg_database WHERE datname = $1 AND oid = $2', [database, oid])).rowCount,
      );
    while (await stillThere()) {
      if (Date.now() > deadline) {
        await this.teardown.dropByName(database, role);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

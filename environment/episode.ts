import type pg from 'pg';
import type { Task } from '../schemas/task.js';
import type { DatabaseCatalog } from './catalog.js';
import type { DomainDefinition } from './domain.js';

/** One episode's live backend: its own database, reached only through its own login role. */
export interface Episode {
  episodeId: string;
  database: string;
  role: string;
  /** Proves the runtime to the internal-table functions at provisioning (a bind parameter); see internal-tables.ts. */
  recorderToken: string;
  /**
   * This handle's lease on the episode, `<recorderToken>.<random>`: passed to every function that writes the internal
   * tables, which refuse it once another attempt has claimed the episode (see internal-tables.ts).
   */
  leaseToken: string;
  /** The attempt that holds this handle (Temporal's attempt number); undefined outside Temporal. */
  attempt: number | undefined;
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

/** Which attempt opens an episode: Temporal's attempt number, so that an older attempt never takes over from a newer. */
export interface OpenOptions {
  attempt?: number;
}

import type { EpisodeOutcome, EpisodeRequest } from '../../schemas/episode.js';

export interface EpisodeHooks {
  /** Called once the episode is open and once per completed turn; the Temporal activity turns it into a heartbeat. */
  onTurn?(turn: number): void;
  signal?: AbortSignal;
  /**
   * Which attempt of the episode this is (Temporal's attempt number). The episode database is fenced by it: once an
   * attempt has claimed the database, an older one writes nothing more to it, stores no record and never tears it
   * down (see environment/internal-tables.ts). Undefined (`finalstate run`): the newest opener takes over.
   */
  attempt?: number;
  /** After a stored episode's teardown: the timings its record cannot hold (writing the record, tearing down). */
  onStored?(timings: { storeMs: number; teardownMs: number }): void;
}

/**
 * Runs one full episode: fresh backend, MCP tool session, agent loop with the simulated user, grading, storage.
 * A task outcome (any reward, any finish reason) is the return value; an infrastructure failure throws
 * InfrastructureError; a malformed task throws UserError.
 */
export interface EpisodeRunner {
  run(request: EpisodeRequest, hooks?: EpisodeHooks): Promise<EpisodeOutcome>;
}

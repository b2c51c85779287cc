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
   * default; it takes a superuser admin, else teardown drops), or `drop` it. See docs/environment.md, Backends.
   */
  reuse?: 'reset' | 'drop';
  /** Drop torn-down databases in the background (default) or before teardown() returns. */
  dropInBackground?: boolean;
  /** Background drops allowed to pile up before provisioning waits for them (default 8). */
  maxPendingDrops?: number;
}

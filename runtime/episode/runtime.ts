import type pg from 'pg';
import type { EnvironmentBackend } from '../../environment/backend.js';
import type { FleetRouter } from '../fleet/router.js';
import type { EpisodeEnvironment } from './environment.js';
import type { DatabaseEpisodeRunner } from './episode-runner.js';
import type { TaskCatalog } from './task-catalog.js';

/** What an episode needs around the runner: built from the stack config by workers/episode-runtime.ts. */
export interface EpisodeRuntime {
  runner: DatabaseEpisodeRunner;
  backend: EnvironmentBackend;
  tasks: TaskCatalog;
  control: pg.Pool;
  /** The worker's view of the rollout fleet: where its served episodes go, which servers are out. */
  router: FleetRouter;
  /** The environments besides the PostgreSQL one that this worker plays (ThinkingBox's, when configured). */
  environments: EpisodeEnvironment[];
  close(): Promise<void>;
}

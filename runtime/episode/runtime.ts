import type pg from 'pg';
import type { EnvironmentBackend } from '../../environment/backend.js';
import type { FleetRouter } from '../fleet/router.js';
import type { EpisodeEnvironment } from './environment.js';
import type { DatabaseEpisodeRunner, EpisodeRunnerDeps } from './episode-runner.js';
import type { TaskCatalog } from './task-catalog.js';

/** What an episode needs around the runner: built from the stack config by workers/episode-runtime.ts. */
export interface EpisodeRuntime {
  runner: DatabaseEpisodeRunner;
  /** What the runner was built with, for a runner of other parts on the same stack (tests: a changed catalog). */
  runnerDeps: EpisodeRunnerDeps;
  backend: EnvironmentBackend;
  tasks: TaskCatalog;
  control: pg.Pool;
  /** The worker's view of the rollout fleet: where its served episodes go, which servers are out. */
  router: FleetRouter;
  /** The environments besides the PostgreSQL one that this worker plays (ThinkingBox's, when configured; OpenEnv's). */
  environments: EpisodeEnvironment[];
  close(): Promise<void>;
}

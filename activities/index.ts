import type pg from 'pg';
import type { ArtifactStore } from '../storage/artifacts.js';
import { createFleetActivities } from './fleet.js';
import { createMetricsActivities } from './metrics.js';
import { createResultActivities } from './results.js';
import { createSelectionActivities } from './selection.js';
import { createSmokeActivities } from './smoke.js';
import { createTaskActivities, type TaskLister } from './tasks.js';
import { createTrainingActivities } from './training.js';

export interface ActivityDeps {
  pool: pg.Pool;
  artifacts: ArtifactStore;
  taskLister: TaskLister;
  /** The stack's policy-server token file (runtime/clients/admin-token.ts). */
  adminTokenFile?: string;
}

/** All light activities of the control worker, built from their dependencies (episodes run on workers/episodes.ts). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSmokeActivities(deps),
    ...createTaskActivities(deps),
    ...createTrainingActivities(deps),
    ...createFleetActivities(deps),
    ...createResultActivities(deps),
    ...createSelectionActivities(deps),
    ...createMetricsActivities(deps),
  };
}

export type ControlActivities = ReturnType<typeof createActivities>;

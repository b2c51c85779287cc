import type pg from 'pg';
import { defaultPublishOptions, type PublishOptions } from '../runtime/clients/policy-admin.js';
import type { ArtifactStore } from '../storage/artifacts.js';
import { postgresServerLeases } from '../storage/server-leases.js';
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
  /** How publishPolicy and reconcileFleet call the rollout servers; their per-server leases default to the control database's. */
  publish?: PublishOptions;
}

/** All light activities of the control worker, built from their dependencies (episodes run on workers/episodes.ts). */
export function createActivities(deps: ActivityDeps) {
  // One lease per rollout server for every control worker, so that no publish overlaps another or a reconcile.
  const publish = { ...defaultPublishOptions, leases: postgresServerLeases(deps.pool.options), ...deps.publish };
  return {
    ...createSmokeActivities(deps),
    ...createTaskActivities(deps),
    ...createTrainingActivities({ ...deps, publish }),
    ...createFleetActivities({ ...deps, publish }),
    ...createResultActivities(deps),
    ...createSelectionActivities(deps),
    ...createMetricsActivities(deps),
  };
}

export type ControlActivities = ReturnType<typeof createActivities>;

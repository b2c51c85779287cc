import type pg from 'pg';
import { createSmokeActivities } from './smoke.js';

export interface ActivityDeps {
  pool: pg.Pool;
}

/** All activities of the control worker, built from their dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSmokeActivities(deps),
  };
}

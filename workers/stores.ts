import path from 'node:path';
import pg from 'pg';
import { connectionConfig } from '../environment/connection.js';
import type { LoadedConfig } from '../schemas/config.js';
import { LocalArtifactStore } from '../storage/artifacts.js';

/** The artifact store of an installation: <dataDir>/artifacts, file:// URIs. */
export function defaultArtifactStore(config: LoadedConfig): LocalArtifactStore {
  return new LocalArtifactStore(path.join(config.dataPath, 'artifacts'));
}

/** A pool on the control database (result rows, episode records, migrations). */
export function controlPool(config: LoadedConfig, max: number): pg.Pool {
  const pool = new pg.Pool({ ...connectionConfig(config), max });
  // Without a listener, an idle client's socket error (PostgreSQL restarted under it) is an unhandled 'error' event
  // that kills the process; with one, the error surfaces on the next query, where retries handle it.
  pool.on('error', () => undefined);
  return pool;
}

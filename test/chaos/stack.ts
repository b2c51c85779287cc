import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import * as stack from '../../infra/stack/index.js';
import { startLocal, stopLocal } from '../../infra/stack/postgres.js';
import { startDevServer, stopDevServer } from '../../infra/stack/temporal.js';
import { sleep } from '../../infra/stack/process.js';
import { freePort } from '../helpers/index.js';

/**
 * A private stack for one chaos run: its own PostgreSQL cluster and Temporal dev server under `dir`, on free ports,
 * so that restarting either hits only this run (never the shared stack or another engineer's).
 */
export interface ChaosStack {
  config: LoadedConfig;
  /** The environment that points a child process (worker, CLI) at this stack. */
  env: Record<string, string>;
  /** Stops the cluster as a crash would (immediate: sessions cut, no shutdown checkpoint), waits `downMs`, starts it again (recovering from the WAL). */
  restartPostgres(downMs: number): Promise<void>;
  /**
   * Crashes the cluster at once: SIGQUIT to the postmaster (what `pg_ctl stop -m immediate` sends, without the time
   * pg_ctl takes to start), waits for it to go, `downMs`, and starts it again (recovering from the WAL).
   */
  crashPostgres(downMs: number): Promise<void>;
  /** Stops the dev server (its SQLite file keeps every history), waits `downMs`, starts it again. */
  restartTemporal(downMs: number): Promise<void>;
  down(): Promise<void>;
}

export async function startChaosStack(dir: string): Promise<ChaosStack> {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755); // the PostgreSQL server user must reach its data dir below
  const temporalAddress = `127.0.0.1:${await freePort()}`;
  const env: Record<string, string> = {
    DATABASE_URL: '',
    FINALSTATE_DATA_DIR: path.join(dir, 'data'),
    FINALSTATE_PG_PORT: String(await freePort()),
    // Both spellings: the caller's environment may set either (FINALSTATE_ wins), and this stack must be private.
    TEMPORAL_ADDRESS: temporalAddress,
    FINALSTATE_TEMPORAL_ADDRESS: temporalAddress,
    FINALSTATE_TEMPORAL_UI_PORT: String(await freePort()),
    FINALSTATE_TEMPORAL_MANAGED: 'true',
  };
  const config = loadConfig({ env: { ...process.env, ...env } });
  await stack.up(config);
  return {
    config,
    env,
    async restartPostgres(downMs) {
      await stopLocal(config, 'immediate');
      await sleep(downMs);
      await startLocal(config);
    },
    async crashPostgres(downMs) {
      const pidFile = path.join(config.dataPath, 'pg', 'postmaster.pid');
      const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
      for (let i = 0; fs.existsSync(pidFile) && i < 600; i++) await sleep(50);
      await sleep(downMs);
      await startLocal(config);
    },
    async restartTemporal(downMs) {
      await stopDevServer(config);
      await sleep(downMs);
      await startDevServer(config);
    },
    async down() {
      await stack.down(config);
    },
  };
}

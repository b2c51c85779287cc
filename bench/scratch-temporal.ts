// A throwaway Temporal dev server for a benchmark: fresh SQLite file, free ports, no Web UI, chosen SQLite pragmas,
// so settings of the server itself can be compared side by side in one run. Stopped (and its files removed) by stop().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadedConfig } from '../schemas/config.js';
import { configureNamespace, devServerArgs, temporalBinary, temporalHealthy } from '../infra/stack/temporal.js';
import { startDaemon, stopDaemon, waitFor } from '../infra/stack/process.js';
import { freePort } from '../testkit/names.js';

export async function startScratchTemporal(config: LoadedConfig, sqlitePragmas: readonly string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-scratch-temporal-'));
  const scratch: LoadedConfig = {
    ...config,
    temporal: { ...config.temporal, address: `127.0.0.1:${await freePort()}` },
  };
  const pidFile = path.join(dir, 'temporal.pid');
  startDaemon({
    command: temporalBinary(config),
    args: [
      ...devServerArgs({
        address: scratch.temporal.address,
        namespace: scratch.temporal.namespace,
        dbFile: path.join(dir, 'temporal.db'),
        sqlitePragmas,
      }),
      '--http-port',
      String(await freePort()),
      '--metrics-port',
      String(await freePort()),
    ],
    pidFile,
    logFile: path.join(dir, 'temporal.log'),
  });
  const stop = async () => {
    await stopDaemon(pidFile, 'start-dev');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor('scratch temporal', () => temporalHealthy(scratch), 60000);
    configureNamespace(scratch);
  } catch (err) {
    await stop();
    throw err;
  }
  return { config: scratch, stop };
}

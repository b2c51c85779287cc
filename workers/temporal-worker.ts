import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type LogLevel,
  type WorkerOptions,
} from '@temporalio/worker';
import type { LoadedConfig } from '../schemas/config.js';
import { InfrastructureError } from '../core/errors.js';

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped; rejects if it crashed. */
  done: Promise<void>;
  /** Graceful stop: in-flight work finishes or is handed back, then connections close. */
  stop(): Promise<void>;
}

export async function connectWorker(config: LoadedConfig): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect({ address: config.temporal.address });
  } catch (err) {
    throw new InfrastructureError(
      `temporal: worker cannot connect to ${config.temporal.address}: ${(err as Error).message}`,
      'temporal',
      { cause: err },
    );
  }
}

let runtimeInstalled = false;

/**
 * Worker log level from FINALSTATE_LOG_LEVEL (default WARN: lifecycle chatter stays out of CLI output). The SDK core's
 * own logs are forwarded to the same logger (stderr): left to the core, they go to stdout, into a command's `--json`.
 */
export function installWorkerRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (process.env.FINALSTATE_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: { logging: { filter: { core: level, other: 'ERROR' }, forward: {} } },
  });
}

/** Wraps a started Worker: `done` settles when it stops, `stop` shuts it down and waits for that. */
export function runWorker(worker: Worker, cleanup: () => Promise<void>): RunningWorker {
  const done = worker.run().finally(cleanup);
  return {
    worker,
    done,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/**
 * A worker of this stack: connected to its Temporal, on its namespace, running. Once it stops, its connection closes,
 * then `cleanup` runs (what else the worker held: a database pool).
 */
export async function startWorker(
  config: LoadedConfig,
  options: Omit<WorkerOptions, 'connection' | 'namespace'>,
  cleanup: () => Promise<void> = async () => {},
): Promise<RunningWorker> {
  installWorkerRuntime();
  const connection = await connectWorker(config);
  const worker = await Worker.create({ connection, namespace: config.temporal.namespace, ...options });
  return runWorker(worker, async () => {
    await connection.close();
    await cleanup();
  });
}

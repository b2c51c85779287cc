import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type LogLevel } from '@temporalio/worker';
import type { LoadedConfig } from '../schemas/config.js';
import { InfrastructureError } from '../core/errors.js';

export async function connectClient(config: LoadedConfig): Promise<Client> {
  try {
    const connection = await Connection.connect({ address: config.temporal.address, connectTimeout: 5000 });
    return new Client({ connection, namespace: config.temporal.namespace });
  } catch (err) {
    throw new InfrastructureError(
      `temporal: cannot connect to ${config.temporal.address} (is \`finalstate dev up\` running?): ${(err as Error).message}`,
      'temporal',
      { cause: err },
    );
  }
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

/** Worker log level from FINALSTATE_LOG_LEVEL (default WARN: lifecycle chatter stays out of CLI output). */
export function installWorkerRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (process.env.FINALSTATE_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  Runtime.install({ logger: new DefaultLogger(level) });
}

import { Client, Connection } from '@temporalio/client';
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

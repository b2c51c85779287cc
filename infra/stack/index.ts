import type { LoadedConfig } from '../../schemas/config.js';
import { databaseAddress } from '../../environment/connection.js';
import * as postgres from './postgres.js';
import * as temporal from './temporal.js';
import * as thinkingbox from './thinkingbox.js';

export interface ComponentStatus {
  name: string;
  healthy: boolean;
  address: string;
}

export interface UpReport {
  name: string;
  action: 'started' | 'running' | 'external';
}

/** Bring up every component the config manages. Idempotent: running components are left alone. */
export async function up(config: LoadedConfig): Promise<UpReport[]> {
  const report: UpReport[] = [];
  if (postgres.isManaged(config)) {
    report.push({ name: 'postgres', action: await postgres.startLocal(config) });
  } else {
    // Not ours to start, but it must answer: `up` reporting an unreachable server as up would only defer the error.
    await postgres.withClient(config, undefined, (client) => client.query('SELECT 1'));
    report.push({ name: 'postgres', action: 'external' });
  }
  await postgres.ensureControlDatabase(config);
  if (config.temporal.managed) {
    report.push({ name: 'temporal', action: await temporal.startDevServer(config) });
  } else {
    temporal.configureNamespace(config);
    report.push({ name: 'temporal', action: 'external' });
  }
  if (thinkingbox.isConfigured(config))
    report.push({ name: 'thinkingbox', action: await thinkingbox.startProxy(config) });
  return report;
}

/** Stop what `up` started (the local cluster and the dev server we own), nothing else. */
export async function down(config: LoadedConfig): Promise<string[]> {
  const stopped: string[] = [];
  if (!config.thinkingbox.url && (await thinkingbox.stopProxy(config))) stopped.push('thinkingbox');
  if (config.temporal.managed && (await temporal.stopDevServer(config))) stopped.push('temporal');
  if (postgres.isManaged(config) && (await postgres.stopLocal(config))) stopped.push('postgres');
  return stopped;
}

export async function status(config: LoadedConfig): Promise<ComponentStatus[]> {
  const [pgOk, temporalOk, uiOk] = await Promise.all([
    postgres.postgresHealthy(config),
    temporal.temporalHealthy(config),
    temporal.uiHealthy(config),
  ]);
  const components: ComponentStatus[] = [
    { name: 'postgres', healthy: pgOk, address: databaseAddress(config) },
    { name: 'temporal', healthy: temporalOk, address: config.temporal.address },
  ];
  if (config.temporal.managed) components.push({ name: 'temporal-ui', healthy: uiOk, address: temporal.uiUrl(config) });
  if (thinkingbox.isConfigured(config))
    components.push({
      name: 'thinkingbox',
      healthy: await thinkingbox.proxyHealthy(config),
      address: thinkingbox.proxyAddress(config).url,
    });
  return components;
}

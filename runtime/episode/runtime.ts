import path from 'node:path';
import pg from 'pg';
import { EnvironmentBackend, type BackendOptions } from '../../environment/backend.js';
import { ExpectedStates } from '../../environment/expected-state.js';
import { defaultRegistry } from '../../environment/registry.js';
import { LocalArtifactStore } from '../../infra/artifacts.js';
import type { LoadedConfig } from '../../infra/config.js';
import { migrate } from '../../infra/migrations.js';
import { connectionConfig } from '../../infra/stack/postgres.js';
import type { ModelPrices } from '../../schemas/runtime.js';
import { DatabaseEpisodeRunner, type EpisodeRunnerDeps } from './episode-runner.js';
import { TaskCatalog } from './task-catalog.js';

export interface EpisodeRuntime {
  runner: DatabaseEpisodeRunner;
  backend: EnvironmentBackend;
  tasks: TaskCatalog;
  control: pg.Pool;
  close(): Promise<void>;
}

/** Everything an episode worker (or `finalstate run`) needs, wired from the stack config. */
export async function createEpisodeRuntime(config: LoadedConfig, options: { backend?: BackendOptions; prices?: ModelPrices; controlConnections?: number } & Pick<EpisodeRunnerDeps, 'policyFor' | 'keepEpisodeDatabases'> = {}): Promise<EpisodeRuntime> {
  const registry = await defaultRegistry({ config });
  const backend = new EnvironmentBackend(config, registry, options.backend);
  const control = new pg.Pool({ ...connectionConfig(config), max: options.controlConnections ?? 4 });
  control.on('error', () => undefined);
  await migrate(control);
  const tasks = new TaskCatalog();
  const runner = new DatabaseEpisodeRunner({
    backend,
    expectedStates: new ExpectedStates(backend),
    tasks,
    artifacts: new LocalArtifactStore(path.join(config.dataPath, 'artifacts')),
    control,
    ...(options.prices ? { prices: options.prices } : {}),
    ...(options.policyFor ? { policyFor: options.policyFor } : {}),
    ...(options.keepEpisodeDatabases ? { keepEpisodeDatabases: true } : {}),
  });
  return {
    runner,
    backend,
    tasks,
    control,
    async close() {
      await backend.close();
      await control.end();
    },
  };
}

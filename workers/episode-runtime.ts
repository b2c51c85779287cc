import { EnvironmentBackend, type BackendOptions } from '../environment/backend.js';
import { ExpectedStates } from '../environment/expected-state.js';
import { defaultRegistry } from './registry.js';
import type { LoadedConfig } from '../schemas/config.js';
import { migrate } from '../storage/migrations.js';
import type { ModelPrices } from '../schemas/runtime.js';
import { DatabaseEpisodeRunner, type EpisodeRunnerDeps } from '../runtime/episode/episode-runner.js';
import { TaskCatalog } from '../runtime/episode/task-catalog.js';
import { FleetRouter, type FleetEvent } from '../runtime/fleet/router.js';
import type { EpisodeRuntime } from '../runtime/episode/runtime.js';
import { controlPool, defaultArtifactStore } from './stores.js';

/** Everything an episode worker (or `finalstate run`) needs, wired from the stack config. */
export async function createEpisodeRuntime(
  config: LoadedConfig,
  options: {
    backend?: BackendOptions;
    prices?: ModelPrices;
    controlConnections?: number;
    /** How often the fleet probes servers taken out (default 2 s). */
    probeIntervalMs?: number;
  } & Pick<EpisodeRunnerDeps, 'policyFor' | 'keepEpisodeDatabases'> = {},
): Promise<EpisodeRuntime> {
  const registry = await defaultRegistry({ config });
  const backend = new EnvironmentBackend(config, registry, options.backend);
  const control = controlPool(config, options.controlConnections ?? 4);
  await migrate(control);
  const tasks = new TaskCatalog();
  // One router per worker process: its counts of episodes in flight per server are this worker's.
  const router = new FleetRouter({
    onChange: logFleetEvent,
    ...(options.probeIntervalMs ? { probeIntervalMs: options.probeIntervalMs } : {}),
  });
  const runner = new DatabaseEpisodeRunner({
    backend,
    expectedStates: new ExpectedStates(backend),
    tasks,
    artifacts: defaultArtifactStore(config),
    control,
    router,
    ...(options.prices ? { prices: options.prices } : {}),
    ...(options.policyFor ? { policyFor: options.policyFor } : {}),
    ...(options.keepEpisodeDatabases ? { keepEpisodeDatabases: true } : {}),
  });
  return {
    runner,
    backend,
    tasks,
    control,
    router,
    async close() {
      router.close();
      await backend.close();
      await control.end();
    },
  };
}

function logFleetEvent(event: FleetEvent): void {
  if (event.kind === 'out') console.warn(`rollout server ${event.url} taken out: ${event.detail}`);
  else console.warn(`rollout server ${event.url} back in service: ${event.detail}`);
}

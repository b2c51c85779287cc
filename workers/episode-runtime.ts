import { EnvironmentBackend, type BackendOptions } from '../environment/backend.js';
import { ExpectedStates } from '../environment/expected-state.js';
import { defaultRegistry } from './registry.js';
import type { LoadedConfig } from '../schemas/config.js';
import { migrate } from '../storage/migrations.js';
import type { ModelPrices } from '../schemas/runtime.js';
import { DatabaseEpisodeRunner, type EpisodeRunnerDeps } from '../runtime/episode/episode-runner.js';
import { TaskCatalog } from '../runtime/episode/task-catalog.js';
import { FleetRouter, type FleetEvent } from '../runtime/fleet/router.js';
import { pricedBy } from '../runtime/cost/cost-model.js';
import type { EpisodeRuntime } from '../runtime/episode/runtime.js';
import { controlPool, defaultArtifactStore } from './stores.js';
import type pg from 'pg';
import * as thinkingbox from '../infra/stack/thinkingbox.js';
import { ThinkingBoxEpisodeRows } from '../environment/thinkingbox/episode-rows.js';
import { thinkingBoxHome } from '../environment/thinkingbox/home.js';
import { collectDeadSessions } from '../environment/thinkingbox/janitor.js';
import { ThinkingBoxProxyClient } from '../environment/thinkingbox/proxy-client.js';
import { ThinkingBoxSessionPool } from '../environment/thinkingbox/session-pool.js';
import { ThinkingBoxSidecar } from '../environment/thinkingbox/sidecar.js';
import { ThinkingBoxEnvironment } from '../runtime/episode/environments/thinkingbox.js';
import { OpenEnvBridge } from '../environment/openenv/bridge.js';
import { OpenEnvEnvironment } from '../runtime/episode/environments/openenv.js';

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
  const thinkingbox = thinkingBoxEnvironment(config, control);
  const openenv = openEnvEnvironment(config, control);
  const environments = [...(thinkingbox ? [thinkingbox.environment] : []), openenv.environment];
  const runnerDeps: EpisodeRunnerDeps = {
    backend,
    environments,
    expectedStates: new ExpectedStates(backend),
    tasks,
    artifacts: defaultArtifactStore(config),
    control,
    servers: router,
    price: pricedBy(options.prices ?? {}),
    ...(options.policyFor ? { policyFor: options.policyFor } : {}),
    ...(options.keepEpisodeDatabases ? { keepEpisodeDatabases: true } : {}),
  };
  const runner = new DatabaseEpisodeRunner(runnerDeps);
  return {
    runner,
    runnerDeps,
    backend,
    tasks,
    control,
    router,
    environments,
    async close() {
      router.close();
      await thinkingbox?.close();
      await openenv.close();
      await backend.close();
      await control.end();
    },
  };
}

/** ThinkingBox's environment when one is configured (THINKINGBOX_HOME and its venv, or a proxy URL), with its janitor. */
function thinkingBoxEnvironment(config: LoadedConfig, control: pg.Pool) {
  if (!thinkingbox.isConfigured(config)) return undefined;
  const proxy = new ThinkingBoxProxyClient(thinkingbox.proxyAddress(config));
  const sessions = new ThinkingBoxSessionPool(proxy, {
    spares: config.thinkingbox.spareSessions,
    timeoutSeconds: config.thinkingbox.toolTimeoutSeconds,
    // a proxy `dev up` started is restarted between episodes once it has slowed down; one of a configured URL is not ours
    ...(config.thinkingbox.url
      ? {}
      : {
          restartAfterSessions: config.thinkingbox.restartAfterSessions,
          restart: () => thinkingbox.restartProxy(config),
        }),
  });
  const sidecar = new ThinkingBoxSidecar(thinkingBoxHome(config).python);
  const leases = controlPool(config, config.workers.episodeConcurrency + 1);
  const environment = new ThinkingBoxEnvironment({
    proxy,
    sessions,
    sidecar,
    control,
    leases,
    toolCallTimeoutMs: (config.thinkingbox.toolTimeoutSeconds + 30) * 1000,
  });
  const rows = new ThinkingBoxEpisodeRows(control);
  const janitor = setInterval(() => void collectDeadSessions(rows, proxy, 30).catch(() => undefined), 5 * 60_000);
  janitor.unref();
  return {
    environment,
    async close() {
      clearInterval(janitor);
      await sessions.close();
      await sidecar.close();
      await leases.end();
    },
  };
}

/** OpenEnv's environment: its client bridge (OpenEnv's own client, in .venv-openenv) starts with the first such task. */
function openEnvEnvironment(config: LoadedConfig, control: pg.Pool) {
  const bridge = new OpenEnvBridge();
  const leases = controlPool(config, config.workers.episodeConcurrency + 1);
  return {
    environment: new OpenEnvEnvironment({ bridge, control, leases }),
    async close() {
      await bridge.close();
      await leases.end();
    },
  };
}

function logFleetEvent(event: FleetEvent): void {
  if (event.kind === 'out') console.warn(`rollout server ${event.url} taken out: ${event.detail}`);
  else console.warn(`rollout server ${event.url} back in service: ${event.detail}`);
}

import type pg from 'pg';
import type { ThinkingBoxProxyClient } from '../environment/thinkingbox/proxy-client.js';
import type { ThinkingBoxSessionPool } from '../environment/thinkingbox/session-pool.js';
import type { ThinkingBoxSidecar } from '../environment/thinkingbox/sidecar.js';
import { DatabaseEpisodeRunner } from '../runtime/episode/episode-runner.js';
import { ThinkingBoxEnvironment } from '../runtime/episode/environments/thinkingbox.js';
import type { EpisodeRuntime } from '../runtime/episode/runtime.js';
import type { LoadedConfig } from '../schemas/config.js';

/**
 * The episode runner of `runtime` with a ThinkingBox environment of the caller's own parts (a proxy of its own, a pool
 * with other settings), as a test or a benchmark needs it; workers/episode-runtime.ts wires the stack's.
 */
export function thinkingBoxRunner(
  config: LoadedConfig,
  runtime: EpisodeRuntime,
  parts: {
    proxy: ThinkingBoxProxyClient;
    sessions: ThinkingBoxSessionPool;
    sidecar: ThinkingBoxSidecar;
    leases: pg.Pool;
  },
  toolCallTimeoutMs = 30_000,
): DatabaseEpisodeRunner {
  return new DatabaseEpisodeRunner({
    ...runtime.runnerDeps,
    environments: [new ThinkingBoxEnvironment({ ...parts, control: runtime.control, toolCallTimeoutMs })],
  });
}

import { loadConfig } from '../../workers/config.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { startEpisodeWorker } from '../../workers/episodes.js';
import { captureBeforeTeardown, ensureFinalStatesTable } from './final-states.js';

/**
 * The chaos suite's episode worker process: the real DatabaseEpisodeRunner (served policy, MCP, grading, records)
 * serving runEpisode on the given task queue, as `finalstate demo` runs it, with the default provisioning (episode
 * databases reset and reused). For the effects check, each teardown first captures the episode database's tool-call
 * records and final state (final-states.ts). It prints its worker identity, so the chaos driver can tell which
 * episodes run here.
 *
 *   node dist/test/chaos/episode-worker.js <taskQueue> <concurrency>
 */
const [taskQueue, concurrency] = process.argv.slice(2);
if (!taskQueue || !concurrency) throw new Error('usage: episode-worker.js <taskQueue> <concurrency>');
const config = loadConfig();
const runtime = await createEpisodeRuntime(config, { controlConnections: Math.max(4, Number(concurrency)) });
await ensureFinalStatesTable(runtime.control);
captureBeforeTeardown(runtime.backend, runtime.control);
const running = await startEpisodeWorker(config, {
  runner: runtime.runner,
  taskQueue,
  concurrency: Number(concurrency),
  shutdownGraceTime: '2 seconds',
});
console.log(`chaos episode worker ready on ${taskQueue} as ${running.worker.options.identity}`);
await running.done;
await runtime.close();

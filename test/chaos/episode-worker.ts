import { loadConfig } from '../../infra/config.js';
import { createEpisodeRuntime } from '../../wiring/episode-runtime.js';
import { startEpisodeWorker } from '../../workers/episodes.js';

/**
 * The chaos suite's episode worker process: the real DatabaseEpisodeRunner (served policy, MCP, grading, records)
 * serving runEpisode on the given task queue, as `finalstate demo` runs it, except that finished episode databases
 * are kept: the effects check compares each one with a replay of its recorded tool calls.
 *
 *   node dist/test/chaos/episode-worker.js <taskQueue> <concurrency>
 */
const [taskQueue, concurrency] = process.argv.slice(2);
if (!taskQueue || !concurrency) throw new Error('usage: episode-worker.js <taskQueue> <concurrency>');
const config = loadConfig();
const runtime = await createEpisodeRuntime(config, {
  controlConnections: Math.max(4, Number(concurrency)),
  keepEpisodeDatabases: true,
  backend: { sparesPerTemplate: 1 },
});
const running = await startEpisodeWorker(config, {
  runner: runtime.runner,
  taskQueue,
  concurrency: Number(concurrency),
  shutdownGraceTime: '2 seconds',
});
console.log(`chaos episode worker ready on ${taskQueue}`);
await running.done;
await runtime.close();

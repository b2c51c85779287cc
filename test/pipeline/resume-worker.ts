import { loadConfig } from '../../infra/config.js';
import { policyFor } from '../../runtime/episode/episode-runner.js';
import { createEpisodeRuntime } from '../../wiring/episode-runtime.js';
import { startEpisodeWorker } from '../../workers/episodes.js';
import { SlowedPolicy, sleep } from './slowed-policy.js';

/**
 * TEST-ONLY episode worker process for resume-worker.test.ts: the real DatabaseEpisodeRunner (createEpisodeRuntime)
 * serving runEpisode on the given task queue, with the request's policy (the oracle) slowed by `turnDelayMs` per
 * turn, so that the test can SIGKILL the process mid-episode. It prints `policy-turn <episodeId> <n>` before every
 * turn its policy is asked for, and keeps finished episode databases so the test can count their rows.
 *
 *   node dist/test/pipeline/resume-worker.js <taskQueue> <turnDelayMs>
 */
const [taskQueue, delay] = process.argv.slice(2);
if (!taskQueue || delay === undefined) throw new Error('usage: resume-worker.js <taskQueue> <turnDelayMs>');
const turnDelayMs = Number(delay);
const config = loadConfig();
const runtime = await createEpisodeRuntime(config, {
  backend: { sparesPerTemplate: 0 }, // a killed process would leak its spares to the janitor
  keepEpisodeDatabases: true,
  policyFor: (request, task) =>
    new SlowedPolicy(policyFor(request, task), async (turn) => {
      console.log(`policy-turn ${request.episodeId} ${turn}`);
      await sleep(turnDelayMs);
    }),
});
const running = await startEpisodeWorker(config, {
  runner: runtime.runner,
  taskQueue,
  concurrency: 2,
  shutdownGraceTime: '1 second',
});
console.log(`resume-worker ready on ${taskQueue}`);
await running.done;
await runtime.close();

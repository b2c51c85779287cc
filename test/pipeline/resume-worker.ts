import { loadConfig } from '../../workers/config.js';
import { policyFor } from '../../runtime/episode/episode-runner.js';
import type { EpisodeRunner } from '../../runtime/episode/runner.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { startEpisodeWorker } from '../../workers/episodes.js';
import { SlowedPolicy, sleep } from '../../testkit/pipeline/slowed-policy.js';

/**
 * TEST-ONLY episode worker process for resume-worker.test.ts and zombie-worker.test.ts: the real
 * DatabaseEpisodeRunner (createEpisodeRuntime) serving runEpisode on the given task queue, with the request's policy
 * (the oracle) slowed by `turnDelayMs` per turn, so that a test can SIGKILL, SIGSTOP or partition the process
 * mid-episode. It prints `policy-turn <episodeId> <n>` before every turn its policy is asked for and
 * `attempt-failed <episodeId> <error name>: <message>` when an attempt fails. With `keep` (the default) it keeps
 * finished episode databases so the test can count their rows; with `teardown` it tears them down as production does.
 *
 * `slots` is how many episodes it runs at once (default 2): a worker with a free slot keeps a poll open on the queue.
 *
 *   node dist/test/pipeline/resume-worker.js <taskQueue> <turnDelayMs> [keep|teardown] [slots]
 */
const [taskQueue, delay, databases = 'keep', slots = '2'] = process.argv.slice(2);
if (!taskQueue || delay === undefined || !['keep', 'teardown'].includes(databases))
  throw new Error('usage: resume-worker.js <taskQueue> <turnDelayMs> [keep|teardown] [slots]');
const turnDelayMs = Number(delay);
const config = loadConfig();
const runtime = await createEpisodeRuntime(config, {
  backend: { sparesPerTemplate: 0 }, // a killed process would leak its spares to the janitor
  keepEpisodeDatabases: databases === 'keep',
  policyFor: (request, task) =>
    new SlowedPolicy(policyFor(request, task), async (turn) => {
      console.log(`policy-turn ${request.episodeId} ${turn}`);
      await sleep(turnDelayMs);
    }),
});
const logged: EpisodeRunner = {
  async run(request, hooks) {
    try {
      return await runtime.runner.run(request, hooks);
    } catch (err) {
      console.log(`attempt-failed ${request.episodeId} ${(err as Error).name}: ${(err as Error).message}`);
      throw err;
    }
  },
};
const running = await startEpisodeWorker(config, {
  runner: logged,
  taskQueue,
  concurrency: Number(slots),
  shutdownGraceTime: '1 second',
});
console.log(`resume-worker ready on ${taskQueue}`);
await running.done;
await runtime.close();

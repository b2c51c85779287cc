import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { loadConfig } from '../../workers/config.js';
import { loadPreset, presetConditions, SERVED_MODEL_NAME } from '../../cli/demo/preset.js';
import { policyFor } from '../../runtime/episode/episode-runner.js';
import type { EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { EpisodeRecord, EpisodeRequest, type EpisodeOutcome } from '../../schemas/episode.js';
import { buildBaseModel } from '../../cli/model/base-model.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { freePort, startProcess, uniqueName } from '../helpers/index.js';
import { SlowedPolicy, sleep } from '../../testkit/pipeline/slowed-policy.js';

// Finding 3 of issue 25: a model-server stall scored as the agent's timeout. The project's policy server serving the
// smoke preset's base model, stopped with SIGSTOP in the middle of an episode for longer than the episode's clock,
// then continued (SIGCONT); the real DatabaseEpisodeRunner on the real PostgreSQL and MCP session. The stalled
// episode must end exactly as the same episode (same seed) without the stall; a stall past the policy client's
// per-call timeout must be an InfrastructureError that names the server and the wait, and its retry must resume and
// end the same way.
const config = loadConfig();
const { preset } = loadPreset('smoke');
const taskSet = fromRoot('tasks', 'retail', 'retail-train-mini.manifest.json');
const CLOCK_MS = 6_000;
const STALL_MS = 10_000;
/** The policy client's per-call timeout in the last test (60 s in the others). */
const PER_CALL_MS = 10_000;
let server: ReturnType<typeof startProcess>;
let baseUrl: string;
let runtime: EpisodeRuntime;
const episodes: string[] = [];
/** Per episode id: the agent turn before which the policy server is stopped, and for how long (else until SIGCONT). */
const stalls = new Map<string, { turn: number; ms?: number }>();
const continueServer = () => void process.kill(server.child.pid!, 'SIGCONT');

before(async () => {
  const built = await buildBaseModel(config, { ...preset.baseModel, cacheDir: config.dataPath, log: () => undefined });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = startProcess(
    fromRoot(config.python.venv, 'bin', 'python'),
    [
      '-m',
      'finalstate.policy_server',
      ...['--model', built.checkpointDir, '--port', String(port), '--device', 'cpu'],
      ...['--served-model-name', SERVED_MODEL_NAME, '--policy-version', '0'],
      // as `finalstate demo` runs it: one torch thread decodes a tiny model fastest on a busy machine
      ...[
        '--threads',
        String(preset.policyServer.threads),
        '--max-batch-size',
        String(preset.policyServer.maxBatchSize),
      ],
    ],
    /policy server ready/,
    { PYTHONPATH: fromRoot('python') },
    180_000,
  );
  await server.started;
  runtime = await createEpisodeRuntime(config, {
    policyFor: (request, task) => {
      const stall = stalls.get(request.episodeId);
      const inner = policyFor(request, task);
      if (!stall) return inner;
      stalls.delete(request.episodeId);
      return new SlowedPolicy(inner, async (turn) => {
        if (turn !== stall.turn) return;
        process.kill(server.child.pid!, 'SIGSTOP');
        if (stall.ms !== undefined) void sleep(stall.ms).then(continueServer);
      });
    },
  });
});

after(async () => {
  if (episodes.length) await runtime.control.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [episodes]);
  await runtime.close();
  continueServer();
  await server.stop();
});

function request(label: string, perCallTimeoutMs: number): EpisodeRequest {
  const task = runtime.tasks.taskSet(taskSet).tasks.find((t) => t.tags[0] === 'address_change')!;
  const episodeId = uniqueName(`stall-${label}`);
  episodes.push(episodeId);
  const { limits, sampling } = presetConditions(preset);
  return EpisodeRequest.parse({
    episodeId,
    taskId: task.id,
    taskSet,
    trial: 0,
    seed: 11,
    policy: {
      kind: 'served',
      client: { baseUrl, model: SERVED_MODEL_NAME, family: 'qwen3', timeoutMs: perCallTimeoutMs, sampling },
    },
    limits: { ...limits, timeoutMs: CLOCK_MS },
  });
}

const recordOf = async (outcome: EpisodeOutcome) =>
  EpisodeRecord.parse(
    (await runtime.control.query('SELECT record FROM episodes WHERE episode_id = $1', [outcome.episodeId])).rows[0]
      ?.record,
  );

/** What decides whether two runs of one episode ended the same: reward, finish reason, what the agent wrote. */
const ending = async (outcome: EpisodeOutcome) => {
  const record = await recordOf(outcome);
  return {
    reward: outcome.reward,
    finishReason: outcome.finishReason,
    agent: record.transcript.turns.flatMap((t) => (t.role === 'assistant' ? [t.raw ?? t.content] : [])),
  };
};

let baseline: Awaited<ReturnType<typeof ending>>;

const summary = (e: Awaited<ReturnType<typeof ending>>) =>
  `reward ${e.reward}, finish reason ${e.finishReason}, ${e.agent.length} agent turns`;

test('the episode without a stall (the baseline the others must match)', async (t) => {
  baseline = await ending(await runtime.runner.run(request('baseline', 60_000)));
  t.diagnostic(`baseline: ${summary(baseline)}`);
  assert.ok(baseline.agent.length >= 1);
});

test('a policy server stopped (SIGSTOP) for longer than the episode clock, within its per-call timeout: the episode ends as without the stall', async (t) => {
  const req = request('stalled', 60_000);
  const turn = Math.min(2, baseline.agent.length);
  stalls.set(req.episodeId, { turn, ms: STALL_MS });
  const outcome = await runtime.runner.run(req);
  t.diagnostic(`stalled ${STALL_MS} ms before turn ${turn}: ${summary(await ending(outcome))}`);
  assert.equal(stalls.has(req.episodeId), false, 'the stall was injected');
  assert.notEqual(outcome.finishReason, 'timeout', `a ${STALL_MS} ms stall against a ${CLOCK_MS} ms clock`);
  assert.deepEqual(await ending(outcome), baseline);
});

test('a stall past the per-call timeout is an InfrastructureError naming the policy server and the wait; the retry resumes and ends as the baseline', async () => {
  const req = request('past-timeout', PER_CALL_MS);
  const turn = Math.min(2, baseline.agent.length);
  stalls.set(req.episodeId, { turn });
  try {
    await assert.rejects(
      runtime.runner.run(req),
      (err: unknown) =>
        err instanceof InfrastructureError &&
        err.component === 'policy-server' &&
        new RegExp(`policy-server at http://127\\.0\\.0\\.1:\\d+/\\S+ timed out after ${PER_CALL_MS} ms`).test(
          err.message,
        ),
    );
  } finally {
    continueServer();
  }
  // Temporal's retries of the same request: the server is back (on a loaded machine one more may time out)
  let outcome: EpisodeOutcome | undefined;
  for (let attempt = 2; !outcome; attempt++) {
    outcome = await runtime.runner.run(req).catch((err: unknown) => {
      if (!(err instanceof InfrastructureError) || attempt >= 4) throw err;
      return undefined;
    });
  }
  const record = await recordOf(outcome);
  assert.deepEqual(
    record.resumedAt.slice(0, 1),
    turn > 1 ? [turn - 1] : [],
    'the retry resumed after the turns done before the stall',
  );
  assert.deepEqual(await ending(outcome), baseline);
});

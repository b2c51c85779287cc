// Orchestration overhead per REAL episode, for the episode fan-out of a 144-episode step (18 tasks x 8 trials):
//   npx tsc -p tsconfig.json && node dist/bench/episodes.js [--concurrency 8] [--model-ms 1000] [--admin-connections N]
// One episode worker in this process runs the real DatabaseEpisodeRunner (createEpisodeRuntime: a PostgreSQL episode
// database per episode, the domain's MCP tools, the scripted user, grading, the record in the control database) with
// the oracle policy, so model time is about 0 and nearly everything measured is overhead; then again with the oracle
// slowed by --model-ms per turn, a STAND-IN FOR MODEL TIME (0 skips that run). The episodes go through the evaluation
// workflow's fan-out on the real Temporal dev server (a grpoStep would discard the oracle's groups: their rewards are
// all equal and it writes no token trajectory). Baseline, in the same process and through the same fan-out: the
// seeded random stand-in runner, which does nothing, so its cost per episode is Temporal's dispatch and the rows.
// The tasks come from the training pool (pools/rl-pool), never the eval split. Prints figures; asserts nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { listSourceTasks, manifestTaskCatalog } from '../activities/tasks.js';
import { LocalArtifactStore } from '../storage/artifacts.js';
import { loadConfig } from '../infra/config.js';
import { fromRoot } from '../core/paths.js';
import { connectClient } from '../infra/temporal-client.js';
import { policyFor } from '../runtime/episode/episode-runner.js';
import type { EpisodeHooks, EpisodeRunner } from '../runtime/episode/runner.js';
import { createEpisodeRuntime } from '../wiring/episode-runtime.js';
import type { TaskSource } from '../schemas/campaign.js';
import type { EpisodeRecord, EpisodeRequest } from '../schemas/episode.js';
import type { TaskQueues } from '../schemas/pipeline.js';
import { evaluation } from '../workflows/evaluation.js';
import { startControlWorker, type RunningWorker } from '../workers/control.js';
import { startEpisodeWorker } from '../workers/episodes.js';
import { uniqueName } from '../test/helpers/index.js';
import { sharedWorkflowBundle } from '../test/pipeline/bundle.js';
import { oracleSettings } from '../test/pipeline/oracle-episodes.js';
import { SeededRandomEpisodeRunner } from '../test/pipeline/seeded-random-runner.js';
import { SlowedPolicy, sleep } from '../test/pipeline/slowed-policy.js';

process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '8' },
    'model-ms': { type: 'string', default: '1000' },
    'admin-connections': { type: 'string' },
  },
});
const concurrency = Number(values.concurrency);
const standInModelMs = Number(values['model-ms']);
const TRIALS = 8;
const source: TaskSource = { taskSet: fromRoot('pools', 'rl-pool'), split: 'train', profile: 'mini', limit: 9 };

/** The real runner, timed from outside: its wall time and what it reports after the record is stored. */
class TimedRunner implements EpisodeRunner {
  readonly times = new Map<string, { wallMs: number; storeMs: number; teardownMs: number }>();
  constructor(private readonly inner: EpisodeRunner) {}
  async run(request: EpisodeRequest, hooks: EpisodeHooks = {}) {
    const t0 = performance.now();
    let after = { storeMs: NaN, teardownMs: NaN };
    const outcome = await this.inner.run(request, { ...hooks, onStored: (t) => void (after = t) });
    this.times.set(request.episodeId, { wallMs: performance.now() - t0, ...after });
    return outcome;
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
const r1 = (x: number) => Math.round(x * 10) / 10;

const config = loadConfig();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-bench-episodes-'));
const campaignId = uniqueName('bench-episodes');
const tasks = await listSourceTasks(manifestTaskCatalog, source);
const episodes = tasks.length * TRIALS;
let modelMsPerTurn = 0;
const runtime = await createEpisodeRuntime(config, {
  controlConnections: concurrency + 2,
  // The backend's admin pool (CREATE/DROP DATABASE, roles) is where provisioning queues; default 3.
  ...(values['admin-connections'] ? { backend: { adminConnections: Number(values['admin-connections']) } } : {}),
  policyFor: (request, task) =>
    modelMsPerTurn > 0
      ? new SlowedPolicy(policyFor(request, task), () => sleep(modelMsPerTurn))
      : policyFor(request, task),
});
const real = new TimedRunner(runtime.runner);
const standIn = new SeededRandomEpisodeRunner({
  tasks: new Map(tasks.map((t) => [t.taskId, { ...t, successRate: 0.5 }])),
  artifacts: new LocalArtifactStore(path.join(dir, 'artifacts')),
  turns: 3,
  withoutTrajectory: true,
});
const control = uniqueName('bench-ep-control');
const queues = {
  real: { control, episodes: uniqueName('bench-ep-real'), gpu: 'unused' },
  standIn: { control, episodes: uniqueName('bench-ep-stand-in'), gpu: 'unused' },
};
const workers: RunningWorker[] = [];
const client = await connectClient(config);

/** The fan-out of `episodes` episode activities (window: all of them) on one queue; per-episode times from the history. */
async function fanOut(label: string, taskQueues: TaskQueues) {
  const resultSet = `${campaignId}/${label}`;
  const settings = oracleSettings(taskQueues, {
    maxAttempts: 3,
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    startToCloseTimeout: '5m',
    heartbeatTimeout: '1m',
  });
  const t0 = performance.now();
  const result = await client.workflow.execute(evaluation, {
    taskQueue: control,
    workflowId: resultSet,
    args: [{ campaignId, resultSet, step: 0, source, k: TRIALS, window: episodes, settings }],
  });
  const wallMs = performance.now() - t0;
  const events = (await client.workflow.getHandle(resultSet).fetchHistory()).events ?? [];
  const scheduled = new Map<number, { at: number; type: string }>();
  const started = new Map<number, number>();
  const perEpisode: { queuedMs: number; activityMs: number }[] = [];
  let first = Infinity;
  let last = 0;
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(Number(e.eventId), { at: ms(e.eventTime), type: s.activityType?.name ?? '' });
    const st = e.activityTaskStartedEventAttributes;
    if (st) started.set(Number(st.scheduledEventId), ms(e.eventTime));
    const c = e.activityTaskCompletedEventAttributes;
    const from = c ? scheduled.get(Number(c.scheduledEventId)) : undefined;
    if (c && from?.type === 'runEpisode') {
      const at = started.get(Number(c.scheduledEventId))!;
      perEpisode.push({ queuedMs: at - from.at, activityMs: ms(e.eventTime) - at });
      first = Math.min(first, from.at);
      last = Math.max(last, ms(e.eventTime));
    }
  }
  const phaseMs = last - first;
  return {
    resultSet,
    done: result.episodes.done,
    infraFailed: result.episodes.infraFailed,
    pass1: result.metrics.pass1,
    phaseMs,
    wallMs,
    perEpisode,
    /** With every slot busy for the whole phase, each episode holds a slot this long on average. */
    slotMs: (phaseMs * concurrency) / perEpisode.length,
    episodesPerSecond: perEpisode.length / (phaseMs / 1000),
  };
}

/** The real runner's fan-out, broken down per episode: Temporal, provisioning, MCP, loop, grading, persistence. */
async function realFanOut(label: string) {
  real.times.clear();
  const run = await fanOut(label, queues.real);
  const records = (
    await runtime.control.query<{ episode_id: string; record: EpisodeRecord }>(
      "SELECT episode_id, record FROM episodes WHERE starts_with(episode_id, $1 || '/')",
      [run.resultSet],
    )
  ).rows;
  const timings = records.map((r) => r.record.timings);
  const outside = records.map((r) => real.times.get(r.episode_id)!);
  const t = (pick: (x: EpisodeRecord['timings']) => number | undefined) => r1(mean(timings.map((x) => pick(x) ?? NaN)));
  const runnerMs = mean(outside.map((o) => o.wallMs));
  const activityMs = mean(run.perEpisode.map((p) => p.activityMs));
  const breakdown = {
    temporalBetweenActivitiesMs: r1(run.slotMs - activityMs),
    temporalInActivityMs: r1(activityMs - runnerMs),
    provisionMs: t((x) => x.provisionMs),
    mcpSessionMs: t((x) => x.mcpSessionMs),
    modelMs: t((x) => x.agentMs),
    toolsMs: t((x) => x.toolsMs),
    userMs: t((x) => x.userMs),
    gradingMs: t((x) => x.gradingMs),
    persistTrajectoryMs: t((x) => x.trajectoryMs),
    persistRecordMs: r1(mean(outside.map((o) => o.storeMs))),
    teardownMs: r1(mean(outside.map((o) => o.teardownMs))),
    turnCheckpointsAndRestMs: r1(
      mean(
        timings.map(
          (x) =>
            x.totalMs -
            x.agentMs -
            x.toolsMs -
            x.userMs -
            x.gradingMs -
            (x.provisionMs ?? 0) -
            (x.mcpSessionMs ?? 0) -
            (x.trajectoryMs ?? 0),
        ),
      ),
    ),
  };
  const modelMs = mean(timings.map((x) => x.agentMs));
  return {
    episodes: records.length,
    infraFailed: run.infraFailed,
    pass1: run.pass1,
    turnsPerEpisode: r1(mean(records.map((r) => r.record.turns.length))),
    slotMsPerEpisode: r1(run.slotMs),
    runnerMsPerEpisode: r1(runnerMs),
    breakdownMs: breakdown,
    modelMsPerEpisode: r1(modelMs),
    overheadMsPerEpisode: r1(run.slotMs - modelMs),
    overheadPerModelTime: modelMs > 1 ? Number(((run.slotMs - modelMs) / modelMs).toFixed(3)) : null,
    queuedMs: {
      mean: r1(mean(run.perEpisode.map((p) => p.queuedMs))),
      p95: r1(
        quantile(
          run.perEpisode.map((p) => p.queuedMs),
          0.95,
        ),
      ),
    },
    phaseSeconds: r1(run.phaseMs / 1000),
    episodesPerSecondOneWorker: Number(run.episodesPerSecond.toFixed(2)),
  };
}

try {
  if (tasks.length !== 18) throw new Error(`expected 18 training tasks from ${source.taskSet}, found ${tasks.length}`);
  for (const domain of new Set(tasks.map((t) => t.domain)))
    await runtime.backend.template(runtime.backend.registry.get(domain));
  workers.push(
    await startControlWorker(config, {
      taskQueue: control,
      workflowBundle: await sharedWorkflowBundle(),
      deps: { artifacts: new LocalArtifactStore(path.join(dir, 'artifacts')) },
    }),
  );
  workers.push(
    await startEpisodeWorker(config, {
      runner: real,
      taskQueue: queues.real.episodes,
      concurrency,
      shutdownGraceTime: '5 seconds',
    }),
  );
  workers.push(
    await startEpisodeWorker(config, {
      runner: standIn,
      taskQueue: queues.standIn.episodes,
      concurrency,
      shutdownGraceTime: '5 seconds',
    }),
  );

  const baseline = await fanOut('stand-in', queues.standIn);
  const oracle = await realFanOut('oracle');
  modelMsPerTurn = standInModelMs;
  const slowed = standInModelMs > 0 ? await realFanOut(`oracle-plus-${standInModelMs}ms-per-turn`) : null;

  const figures = {
    episodes,
    tasks: tasks.length,
    trials: TRIALS,
    episodeWorkerConcurrency: concurrency,
    backendAdminConnections: runtime.backend.admin.options.max,
    baselineStandInRunner: {
      slotMsPerEpisode: r1(baseline.slotMs),
      episodesPerSecondOneWorker: Number(baseline.episodesPerSecond.toFixed(1)),
      phaseSeconds: r1(baseline.phaseMs / 1000),
    },
    oracle: { ...oracle, slotTimesBaseline: r1(oracle.slotMsPerEpisode / baseline.slotMs) },
    ...(slowed
      ? {
          [`oraclePlusModelStandIn${standInModelMs}MsPerTurn`]: {
            ...slowed,
            slotTimesBaseline: r1(slowed.slotMsPerEpisode / baseline.slotMs),
          },
        }
      : {}),
  };
  console.log(JSON.stringify(figures, null, 2));
  const line = (name: string, x: typeof oracle) => {
    const b = x.breakdownMs;
    return (
      `  ${name}: ${x.episodes} episodes (${x.turnsPerEpisode} agent turns each, pass@1 ${x.pass1.toFixed(2)}, ${x.infraFailed} infra failures)\n` +
      `    one worker sustains ${x.episodesPerSecondOneWorker} episodes/s; a slot per episode ${x.slotMsPerEpisode} ms = ${r1(x.slotMsPerEpisode / baseline.slotMs)}x the baseline\n` +
      `    Temporal: ${b.temporalBetweenActivitiesMs} ms between activities + ${b.temporalInActivityMs} ms in the activity around the runner (queued before start: mean ${x.queuedMs.mean} ms, p95 ${x.queuedMs.p95})\n` +
      `    runner ${x.runnerMsPerEpisode} ms: provisioning ${b.provisionMs}, MCP session ${b.mcpSessionMs}, model ${b.modelMs}, tools ${b.toolsMs}, user ${b.userMs}, grading ${b.gradingMs}, ` +
      `persistence ${r1(b.persistTrajectoryMs + b.persistRecordMs)} (trajectory ${b.persistTrajectoryMs}, record ${b.persistRecordMs}), teardown ${b.teardownMs}, turn checkpoints and the rest ${b.turnCheckpointsAndRestMs}\n` +
      `    overhead ${x.overheadMsPerEpisode} ms per episode against model time ${x.modelMsPerEpisode} ms${x.overheadPerModelTime !== null ? ` (overhead / model time = ${x.overheadPerModelTime})` : ''}`
    );
  };
  console.log(
    `\n${episodes} episodes (${tasks.length} training tasks x ${TRIALS}), one episode worker, ${concurrency} at once (backend admin pool ${figures.backendAdminConnections}), this machine (${os.cpus().length} cores):\n` +
      `  baseline (stand-in runner, no backend): ${figures.baselineStandInRunner.slotMsPerEpisode} ms of a slot per episode, ${figures.baselineStandInRunner.episodesPerSecondOneWorker} episodes/s\n` +
      `${line('real runner, oracle (model time ~0)', oracle)}\n` +
      (slowed
        ? `${line(`real runner, oracle + ${standInModelMs} ms per turn (stand-in for model time)`, slowed)}\n`
        : ''),
  );
} finally {
  for (const w of workers.reverse()) await w.stop().catch(() => undefined);
  await runtime.control
    .query('DELETE FROM campaign_result_rows WHERE campaign_id = $1', [campaignId])
    .catch(() => undefined);
  await runtime.control.query('DELETE FROM episodes WHERE campaign_id = $1', [campaignId]).catch(() => undefined);
  await runtime.close();
  await client.connection.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

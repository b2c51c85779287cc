// Orchestration overhead per REAL episode, for the episode fan-out of a 144-episode step (18 tasks x 8 trials):
//   npm run build && node dist/bench/episodes.js [--concurrency 16] [--model-ms 1000] [--tunings before,after]
//     [--server scratch|stack] [--pollers N|slots] [--heartbeat-throttle 30s] [--window N] [--anchor-sessions 144]
//     [--sweep] [--stand-in-only] [--admin-connections N] [--json]
// One episode worker in this process runs the real DatabaseEpisodeRunner (createEpisodeRuntime: a PostgreSQL episode
// database per episode, the domain's MCP tools, the scripted user, grading, the record in the control database) with
// the oracle policy, so model time is about 0 and nearly everything measured is overhead; then again with the oracle
// slowed by --model-ms per turn, a STAND-IN FOR MODEL TIME (0 skips that run). The episodes go through the evaluation
// workflow's fan-out on a real Temporal dev server (a grpoStep would discard the oracle's groups: their rewards are
// all equal and it writes no token trajectory).
// Before against after, back to back in one run, taking turns at going first (they share the machine's load, printed
// from os.loadavg()): `before` is the old setup, a dev server on SQLite's default rollback journal and the SDK's
// worker defaults; `after` is DEV_SERVER_SQLITE_PRAGMAS (infra/stack/temporal.ts) and EPISODE_WORKER_TUNING
// (workers/episodes.ts; --pollers and --heartbeat-throttle override it, to explore). With --server scratch (the default) each gets a fresh dev server of
// its own (bench/scratch-temporal.ts); with --server stack both use the stack's, and only the worker knobs differ.
// Baselines in the same run: the seeded random stand-in runner, which does nothing (its cost per episode is Temporal's
// dispatch and the rows), with and without the same model time; and the reference anchor, a fresh Python process per
// session (bench/session-process.ts). --sweep adds a table of the episode-worker knobs (pollers, heartbeat throttle,
// sliding window) on the after setup, with the stand-in runner and the model time. --stand-in-only skips the real
// runner. The tasks come from the training pool (pools/rl-pool), never the eval split. Prints figures; asserts nothing.
import { BENCH_TRAINING_TASKS, benchTrainingTasks } from './training-tasks.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { LocalArtifactStore } from '../storage/artifacts.js';
import { loadConfig } from '../workers/config.js';
import { connectClient } from '../workers/temporal-client.js';
import { policyFor } from '../runtime/episode/episode-runner.js';
import type { EpisodeHooks, EpisodeRunner } from '../runtime/episode/runner.js';
import { createEpisodeRuntime } from '../workers/episode-runtime.js';
import type { EpisodeRecord, EpisodeRequest } from '../schemas/episode.js';
import type { TaskQueues } from '../schemas/pipeline.js';
import { evaluation } from '../workflows/evaluation.js';
import { startControlWorker } from '../workers/control.js';
import type { RunningWorker } from '../workers/temporal-worker.js';
import { EPISODE_WORKER_TUNING, startEpisodeWorker, type EpisodeWorkerTuning } from '../workers/episodes.js';
import { DEV_SERVER_SQLITE_PRAGMAS } from '../infra/stack/temporal.js';
import type { LoadedConfig } from '../schemas/config.js';
import type { Client } from '@temporalio/client';
import { uniqueName } from '../testkit/names.js';
import { sharedWorkflowBundle } from '../testkit/pipeline/bundle.js';
import { oracleSettings } from '../testkit/pipeline/oracle-episodes.js';
import { SeededRandomEpisodeRunner } from '../testkit/pipeline/seeded-random-runner.js';
import { SlowedPolicy, sleep } from '../testkit/pipeline/slowed-policy.js';
import { fanOutHistory, mean, quantile } from './fan-out-history.js';
import { startScratchTemporal } from './scratch-temporal.js';
import { SESSION_IMPORTS, sessionProcesses } from './session-process.js';

process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '16' },
    'model-ms': { type: 'string', default: '1000' },
    'admin-connections': { type: 'string' },
    tunings: { type: 'string', default: 'before,after' },
    pollers: { type: 'string' },
    'heartbeat-throttle': { type: 'string' },
    window: { type: 'string' },
    'anchor-sessions': { type: 'string' },
    json: { type: 'boolean', default: false },
    'stand-in-only': { type: 'boolean', default: false },
    server: { type: 'string', default: 'scratch' },
    sweep: { type: 'boolean', default: false },
  },
});
const concurrency = Number(values.concurrency);
const standInModelMs = Number(values['model-ms']);
const TRIALS = 8;
const TURNS = 3; // the oracle's agent turns on these tasks; the stand-in runner plays as many
const source = BENCH_TRAINING_TASKS;
interface Setup {
  worker: EpisodeWorkerTuning;
  /** The dev server's SQLite pragmas; [] is SQLite's defaults (rollback journal, synchronous=FULL). */
  sqlitePragmas: readonly string[];
}
const setups: Record<string, Setup> = {
  before: { worker: { activityPollers: 10 }, sqlitePragmas: [] },
  after: {
    worker: {
      ...EPISODE_WORKER_TUNING,
      ...(values.pollers ? { activityPollers: values.pollers === 'slots' ? 'slots' : Number(values.pollers) } : {}),
      ...(values['heartbeat-throttle'] ? { heartbeatThrottle: values['heartbeat-throttle'] } : {}),
    },
    sqlitePragmas: DEV_SERVER_SQLITE_PRAGMAS,
  },
};
const chosen = values.tunings.split(',').map((name) => {
  if (!setups[name]) throw new Error(`--tunings: unknown setup ${name} (known: ${Object.keys(setups).join(', ')})`);
  return name;
});
if (!['scratch', 'stack'].includes(values.server)) throw new Error(`--server: scratch or stack, not ${values.server}`);

/** The real runner, timed from outside: its wall time, what it reports after the record is stored, its heartbeats. */
class TimedRunner implements EpisodeRunner {
  readonly times = new Map<string, { wallMs: number; storeMs: number; teardownMs: number; heartbeats: number }>();
  constructor(private readonly inner: EpisodeRunner) {}
  async run(request: EpisodeRequest, hooks: EpisodeHooks = {}) {
    const t0 = performance.now();
    let after = { storeMs: NaN, teardownMs: NaN };
    let heartbeats = 0;
    const outcome = await this.inner.run(request, {
      ...hooks,
      onTurn: (turn) => {
        heartbeats += 1;
        hooks.onTurn?.(turn);
      },
      onStored: (t) => void (after = t),
    });
    this.times.set(request.episodeId, { wallMs: performance.now() - t0, ...after, heartbeats });
    return outcome;
  }
}

const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const config = loadConfig();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-bench-episodes-'));
const campaignId = uniqueName('bench-episodes');
const tasks = await benchTrainingTasks();
const episodes = tasks.length * TRIALS;
const window = values.window ? Number(values.window) : episodes;
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
const standInTasks = new Map(tasks.map((t) => [t.taskId, { ...t, successRate: 0.5 }]));
const standIn = (turnDelayMs: number) =>
  new SeededRandomEpisodeRunner({
    tasks: standInTasks,
    artifacts: new LocalArtifactStore(path.join(dir, 'artifacts')),
    turns: TURNS,
    turnDelayMs,
    withoutTrajectory: true,
  });
const control = uniqueName('bench-ep-control');
const workers: RunningWorker[] = [];
const scratchServers: { stop(): Promise<void> }[] = [];
/** Per setup: the Temporal server's config, a client and a control worker on it. */
const servers = new Map<string, { config: LoadedConfig; client: Client }>();

/** The fan-out of `episodes` episode activities (window: all of them, unless --window) on one queue. */
async function fanOut(setup: string, label: string, taskQueues: TaskQueues, depth = window) {
  const { client } = servers.get(setup)!;
  const resultSet = `${campaignId}/${label}`;
  const settings = oracleSettings(taskQueues, {
    maxAttempts: 3,
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    startToCloseTimeout: '5m',
    heartbeatTimeout: '1m',
  });
  const loadBefore = load();
  const result = await client.workflow.execute(evaluation, {
    taskQueue: control,
    workflowId: resultSet,
    args: [{ campaignId, resultSet, step: 0, source, k: TRIALS, window: depth, settings }],
  });
  const history = fanOutHistory((await client.workflow.getHandle(resultSet).fetchHistory()).events ?? [], concurrency);
  /** With every slot busy for the whole phase, each episode holds a slot this long on average. */
  const slotMs = (history.phaseMs * concurrency) / history.episodes;
  return {
    resultSet,
    infraFailed: result.episodes.infraFailed,
    pass1: result.metrics.pass1,
    history,
    slotMs,
    activityMs: mean(history.perEpisode.map((p) => p.activityMs)),
    episodesPerSecond: history.episodes / (history.phaseMs / 1000),
    load: `${loadBefore} -> ${load()}`,
  };
}

/** The real runner's fan-out, broken down per episode: Temporal, provisioning, MCP, loop, grading, persistence. */
async function realFanOut(setup: string, label: string, taskQueues: TaskQueues) {
  real.times.clear();
  const run = await fanOut(setup, label, taskQueues);
  const records = (
    await runtime.control.query<{ episode_id: string; record: EpisodeRecord }>(
      "SELECT episode_id, record FROM episodes WHERE starts_with(episode_id, $1 || '/')",
      [run.resultSet],
    )
  ).rows;
  const timings = records.map((r) => r.record.timings);
  const outside = records.map((r) => real.times.get(r.episode_id)!);
  const t = (pick: (x: EpisodeRecord['timings']) => number | undefined) => mean(timings.map((x) => pick(x) ?? NaN));
  const runnerMs = mean(outside.map((o) => o.wallMs));
  const modelMs = t((x) => x.agentMs);
  const h = run.history;
  return {
    episodes: records.length,
    infraFailed: run.infraFailed,
    pass1: run.pass1,
    turnsPerEpisode: mean(records.map((r) => r.record.turns.length)),
    episodesPerSecond: run.episodesPerSecond,
    slotMs: run.slotMs,
    provisionMs: t((x) => x.provisionMs),
    betweenActivitiesMs: run.slotMs - run.activityMs,
    idleWhileQueuedMs: h.idleWhileQueuedMs,
    idleDrainMs: h.idleDrainMs,
    inActivityMs: run.activityMs - runnerMs,
    mcpSessionMs: t((x) => x.mcpSessionMs),
    toolsMs: t((x) => x.toolsMs),
    userMs: t((x) => x.userMs),
    gradingMs: t((x) => x.gradingMs),
    persistMs: t((x) => x.trajectoryMs ?? 0) + mean(outside.map((o) => o.storeMs)),
    teardownMs: mean(outside.map((o) => o.teardownMs)),
    modelMs,
    overheadPerModelTime: modelMs > 1 ? (run.slotMs - modelMs) / modelMs : NaN,
    overheadWithoutDrainPerModelTime: modelMs > 1 ? (run.slotMs - h.idleDrainMs - modelMs) / modelMs : NaN,
    queuedP95Ms: quantile(
      h.perEpisode.map((p) => p.queuedMs),
      0.95,
    ),
    heartbeatsCalled: mean(outside.map((o) => o.heartbeats)),
    workflowTaskMs: h.workflowTaskMs,
    historyEvents: h.historyEvents,
    inputBytes: h.inputBytes,
    resultBytes: h.resultBytes,
    load: run.load,
  };
}

type Row = Awaited<ReturnType<typeof realFanOut>>;

async function withEpisodeWorker<T>(
  setup: string,
  runner: EpisodeRunner,
  tuning: EpisodeWorkerTuning,
  fn: (q: TaskQueues) => Promise<T>,
) {
  const queues = { control, episodes: uniqueName('bench-ep'), gpu: 'unused' };
  const worker = await startEpisodeWorker(servers.get(setup)!.config, {
    runner,
    taskQueue: queues.episodes,
    concurrency,
    shutdownGraceTime: '5 seconds',
    tuning,
  });
  try {
    return await fn(queues);
  } finally {
    await worker.stop();
  }
}

function setupLine({ worker: t, sqlitePragmas }: Setup) {
  const pollers = t.activityPollers === 'slots' ? concurrency : Math.min(concurrency, t.activityPollers);
  return {
    server:
      values.server === 'scratch'
        ? `fresh dev server, SQLite ${sqlitePragmas.join(' ') || 'defaults (rollback journal, synchronous=FULL)'}`
        : "the stack's dev server",
    slots: concurrency,
    activityPollers: pollers,
    heartbeatThrottle: t.heartbeatThrottle ?? '0.8 x heartbeat timeout, <= 60 s',
    window,
  };
}

try {
  for (const domain of new Set(tasks.map((t) => t.domain)))
    await runtime.backend.template(runtime.backend.registry.get(domain));
  for (const name of chosen) {
    let serverConfig = config;
    if (values.server === 'scratch') {
      const scratch = await startScratchTemporal(config, setups[name]!.sqlitePragmas);
      scratchServers.push(scratch);
      serverConfig = scratch.config;
    }
    servers.set(name, { config: serverConfig, client: await connectClient(serverConfig) });
    workers.push(
      await startControlWorker(serverConfig, {
        taskQueue: control,
        workflowBundle: await sharedWorkflowBundle(),
        deps: { artifacts: new LocalArtifactStore(path.join(dir, 'artifacts')) },
      }),
    );
  }
  const loadAtStart = load();
  const standIns: Record<string, Awaited<ReturnType<typeof fanOut>>> = {};
  const rows: Record<string, Row> = {};
  for (const [workload, delay] of [
    ['stand-in', 0],
    ...(standInModelMs > 0 ? [[`stand-in + ${standInModelMs} ms/turn`, standInModelMs] as const] : []),
  ] as const)
    for (const name of chosen)
      standIns[`${workload}, ${name}`] = await withEpisodeWorker(name, standIn(delay), setups[name]!.worker, (q) =>
        fanOut(name, `${workload.replace(/\W+/g, '-')}-${name}`, q),
      );
  for (const [workload, perTurn] of (values['stand-in-only']
    ? []
    : [
        ['oracle', 0],
        ...(standInModelMs > 0 ? [[`${standInModelMs} ms/turn`, standInModelMs] as const] : []),
      ]) as (readonly [string, number])[]) {
    modelMsPerTurn = perTurn;
    // Alternate which setup goes first, so a drift in the machine's load favours neither.
    for (const name of perTurn > 0 ? [...chosen].reverse() : chosen)
      rows[`${workload}, ${name}`] = await withEpisodeWorker(name, real, setups[name]!.worker, (q) =>
        realFanOut(name, `${workload.replace(/\W+/g, '-')}-${name}`, q),
      );
  }
  // The knobs one at a time on the after setup, with the stand-in runner and the model time: Temporal alone.
  const base = setups.after!.worker;
  const sweepRows =
    values.sweep && standInModelMs > 0 && servers.has('after')
      ? await (async () => {
          const variants: [string, EpisodeWorkerTuning, number][] = [
            ['activity pollers 4', { ...base, activityPollers: 4 }, window],
            ['activity pollers 10 (SDK default)', { ...base, activityPollers: 10 }, window],
            [`activity pollers = slots (${concurrency})`, { ...base, activityPollers: 'slots' }, window],
            ['heartbeat throttle 1 s (3 heartbeats sent)', { ...base, heartbeatThrottle: '1s' }, window],
            [`sliding window = slots (${concurrency})`, base, concurrency],
            [`sliding window = 2 x slots (${2 * concurrency})`, base, 2 * concurrency],
            [`sliding window = all (${episodes})`, base, episodes],
          ];
          const out: [string, Awaited<ReturnType<typeof fanOut>>][] = [];
          for (const [label, tuning, depth] of variants)
            out.push([
              label,
              await withEpisodeWorker('after', standIn(standInModelMs), tuning, (q) =>
                fanOut('after', `sweep-${label.replace(/\W+/g, '-')}`, q, depth),
              ),
            ]);
          return out;
        })()
      : [];
  const anchorSessions = Number(values['anchor-sessions'] ?? episodes);
  const anchor = anchorSessions > 0 ? await sessionProcesses(anchorSessions, concurrency) : null;

  if (values.json)
    console.log(
      JSON.stringify(
        {
          episodes,
          concurrency,
          window,
          setups: Object.fromEntries(chosen.map((n) => [n, setupLine(setups[n]!)])),
          standIns,
          rows,
          anchor,
        },
        (k, v) => (k === 'perEpisode' ? undefined : v),
        2,
      ),
    );

  const columns = [...new Set(Object.keys(rows).map((c) => c.slice(0, c.lastIndexOf(', '))))].flatMap((w) =>
    chosen.map((name) => `${w}, ${name}`),
  );
  const f = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
  const table: [string, (r: Row) => string][] = [
    ['episodes/s, one worker', (r) => f(r.episodesPerSecond, 2)],
    ['slot per episode', (r) => f(r.slotMs)],
    ['provisioning', (r) => f(r.provisionMs)],
    ['Temporal, between activities', (r) => f(r.betweenActivitiesMs)],
    ['  slots idle, episodes queued (dispatch)', (r) => f(r.idleWhileQueuedMs)],
    ['  slots idle, none left to start (drain)', (r) => f(r.idleDrainMs)],
    ['Temporal, in the activity around the runner', (r) => f(r.inActivityMs)],
    ['tools', (r) => f(r.toolsMs)],
    ['grading', (r) => f(r.gradingMs)],
    ['persistence + teardown + MCP session', (r) => f(r.persistMs + r.teardownMs + r.mcpSessionMs)],
    ['model time', (r) => f(r.modelMs)],
    ['overhead / model time', (r) => f(r.overheadPerModelTime, 3)],
    ['  without the drain', (r) => f(r.overheadWithoutDrainPerModelTime, 3)],
    ['queued before start, p95', (r) => f(r.queuedP95Ms, 0)],
    ['workflow task p50 / max', (r) => `${f(r.workflowTaskMs.p50, 0)} / ${f(r.workflowTaskMs.max, 0)}`],
    ['payload in / out (bytes per episode)', (r) => `${f(r.inputBytes, 0)} / ${f(r.resultBytes, 0)}`],
    ['heartbeats called per episode', (r) => f(r.heartbeatsCalled)],
    ['history events', (r) => String(r.historyEvents)],
    ['pass@1, infra failures', (r) => `${r.pass1.toFixed(2)}, ${r.infraFailed}`],
  ];
  const width = 46;
  const cell = Math.max(18, ...columns.map((c) => c.length + 2));
  const line = (label: string, cells: string[]) => label.padEnd(width) + cells.map((c) => c.padStart(cell)).join('');
  console.log(
    `\n${episodes} episodes (${tasks.length} training tasks x ${TRIALS}, ${TURNS} agent turns), one episode worker with ${concurrency} slots, ` +
      `sliding window ${window}, backend admin pool ${runtime.backend.admin.options.max}, ${os.cpus().length} cores; ms per episode unless named.\n` +
      `loadavg (1/5/15 min) at start ${loadAtStart}; per column, before -> after it: see the last row.\n`,
  );
  if (columns.length) {
    console.log(line('', columns));
    for (const [label, pick] of table)
      console.log(
        line(
          label,
          columns.map((c) => pick(rows[c]!)),
        ),
      );
    console.log(
      line(
        'loadavg (1 min) before -> after',
        columns.map((c) => rows[c]!.load.replace(/ \S+ \S+ ->/, ' ->').replace(/ \S+ \S+$/, '')),
      ),
    );
  }
  console.log('\nThe stand-in runner (no backend, 3 turns), through the same fan-out: Temporal alone.');
  const standInColumns = Object.keys(standIns);
  const sCell = Math.max(18, ...standInColumns.map((c) => c.length + 2));
  const sLine = (label: string, cells: string[]) => label.padEnd(width) + cells.map((c) => c.padStart(sCell)).join('');
  console.log(sLine('', standInColumns));
  const s = (pick: (x: Awaited<ReturnType<typeof fanOut>>) => string) => standInColumns.map((c) => pick(standIns[c]!));
  console.log(
    sLine(
      'episodes/s, one worker',
      s((x) => f(x.episodesPerSecond, 1)),
    ),
  );
  console.log(
    sLine(
      'slot per episode',
      s((x) => f(x.slotMs)),
    ),
  );
  console.log(
    sLine(
      '  slots idle, episodes queued (dispatch)',
      s((x) => f(x.history.idleWhileQueuedMs)),
    ),
  );
  console.log(
    sLine(
      '  slots idle, none left to start (drain)',
      s((x) => f(x.history.idleDrainMs)),
    ),
  );
  console.log(
    sLine(
      'activity started -> completed',
      s((x) => f(x.activityMs)),
    ),
  );
  console.log(
    sLine(
      'workflow task p50 / max',
      s((x) => `${f(x.history.workflowTaskMs.p50, 0)} / ${f(x.history.workflowTaskMs.max, 0)}`),
    ),
  );
  if (sweepRows.length) {
    const model = TURNS * standInModelMs;
    console.log(
      `\nKnob sweep on the after setup: stand-in runner, ${TURNS} turns x ${standInModelMs} ms, ${episodes} episodes, ${concurrency} slots (ms per episode):`,
    );
    console.log(
      ['knob'.padEnd(width), 'slot', 'overhead', 'dispatch', 'drain', 'in activity', 'loadavg']
        .map((x, i) => (i ? x.padStart(13) : x))
        .join(''),
    );
    for (const [label, x] of sweepRows)
      console.log(
        label.padEnd(width) +
          [
            f(x.slotMs),
            f(x.slotMs - model),
            f(x.history.idleWhileQueuedMs),
            f(x.history.idleDrainMs),
            f(x.activityMs - model),
            x.load.split(' ')[0]!,
          ]
            .map((c) => c.padStart(13))
            .join(''),
      );
  }
  console.log('\nSetups:');
  for (const name of chosen) console.log(`  ${name}: ${JSON.stringify(setupLine(setups[name]!))}`);
  if (anchor)
    console.log(
      `\nReference anchor, a fresh Python process per session (\`.venv/bin/python -c "${SESSION_IMPORTS}"\`), ${anchor.sessions} sessions, ${Math.min(concurrency, anchor.sessions)} at once:\n` +
        `  ${f(anchor.meanMs)} ms per process (p95 ${f(anchor.p95Ms)}), ${f(anchor.slotMsPerSession)} ms of a slot per session; ` +
        columns.map((c) => `provisioning ${c} = ${f(rows[c]!.provisionMs / anchor.meanMs, 2)}x`).join(', '),
    );
  console.log(`loadavg at the end ${load()}`);
} finally {
  for (const w of workers.reverse()) await w.stop().catch(() => undefined);
  for (const { client } of servers.values()) await client.connection.close().catch(() => undefined);
  for (const server of scratchServers) await server.stop().catch(() => undefined);
  await runtime.control
    .query('DELETE FROM campaign_result_rows WHERE campaign_id = $1', [campaignId])
    .catch(() => undefined);
  await runtime.control.query('DELETE FROM episodes WHERE campaign_id = $1', [campaignId]).catch(() => undefined);
  await runtime.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

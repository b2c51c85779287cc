/**
 * ThinkingBox episodes, in one run, on the project's ThinkingBox tasks (tasks/thinkingbox, imported into a temp dir):
 *   node dist/bench/thinkingbox.js [--tasks 5] [--episodes 16] [--concurrency 2] [--rounds 4] [--json]
 * Three ways of playing the same oracle episodes (--episodes of the first --tasks tasks, taken in turn, one from each
 * scenario in turn), --concurrency at once, against the stack's session proxy:
 *   - finalstate-cold: finalstate's DatabaseEpisodeRunner and ThinkingBoxEnvironment (the oracle policy, the
 *     scripted user, turn checkpoints and the episode's row in the control database, ThinkingBox's grader in the
 *     sidecar, the record stored), with ThinkingBoxSessionPool spares 0: every episode creates its session;
 *   - finalstate-pool: the same with spares 2 (the default), the pool warmed for every task's configuration first
 *     (untimed); each take refills in the background, on the same cores;
 *   - thinkingbox: ThinkingBox's own runner (sidecar op run_oracle_thinkingbox: its MCPProxyClient session, its
 *     run_agent_user_loop with an oracle AgentSessionBase, make_test_context, its TestScript with the unjudged
 *     judge), one sidecar process per slot.
 * Every way runs --episodes / --rounds episodes per round, the order of the ways reversed every other round (they
 * share the machine's load: the 1-minute load average before and after each batch is printed). Before the rounds
 * every way plays one untimed episode (processes started, modules loaded). Episodes/s is from a batch's first start
 * to its last end, and for finalstate until its pool's background work (refills, sessions destroyed after their
 * episodes) is done, summed over rounds. Before each pool
 * batch every configuration has its spares (topped up untimed; they stay between batches, idle). Ratios are between
 * ways of this run. The oracle plays every golden call and its closing message in both runners. Prints figures;
 * asserts nothing (it says when an oracle was not graded 1).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { fromRoot } from '../core/paths.js';
import { readTaskSet } from '../environment/task-set.js';
import { thinkingBoxHome } from '../environment/thinkingbox/home.js';
import { importThinkingBox } from '../environment/thinkingbox/import.js';
import { ThinkingBoxProxyClient } from '../environment/thinkingbox/proxy-client.js';
import {
  ThinkingBoxSessionPool,
  type SessionSpec,
  type TakenSession,
} from '../environment/thinkingbox/session-pool.js';
import { ThinkingBoxSidecar } from '../environment/thinkingbox/sidecar.js';
import * as thinkingbox from '../infra/stack/thinkingbox.js';
import { EpisodeStore } from '../runtime/episode/episode-store.js';
import { EpisodeRequest, type EpisodeRecord } from '../schemas/episode.js';
import type { Task } from '../schemas/task.js';
import { OracleRunResponse } from '../schemas/thinkingbox.js';
import { loadConfig } from '../workers/config.js';
import { createEpisodeRuntime } from '../workers/episode-runtime.js';
import { controlPool } from '../workers/stores.js';
import { thinkingBoxRunner } from '../testkit/thinkingbox-runner.js';

process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '5' },
    episodes: { type: 'string', default: '16' },
    concurrency: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '4' },
    json: { type: 'boolean', default: false },
  },
});
const taskCount = Number(values.tasks);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const perRound = Math.max(1, Math.round(Number(values.episodes) / rounds));
const SPARES = 2;

const config = loadConfig();
if (!thinkingbox.isConfigured(config)) {
  console.error('ThinkingBox is not configured here: set THINKINGBOX_HOME and run npm run setup');
  process.exit(2);
}
const proxy = new ThinkingBoxProxyClient(thinkingbox.proxyAddress(config));
if (!(await proxy.healthy())) {
  console.error(`no ThinkingBox proxy answers at ${proxy.url}: run finalstate dev up`);
  process.exit(2);
}
const home = thinkingBoxHome(config);
const timeoutSeconds = config.thinkingbox.toolTimeoutSeconds;

const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** The 1-minute load average. */
const load = () => os.loadavg()[0]!.toFixed(2);

async function inParallel(count: number, limit: number, fn: (i: number, slot: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async (_, slot) => {
      while (next < count) await fn(next++, slot);
    }),
  );
}

// The project's ThinkingBox tasks, imported as test/helpers/thinkingbox.ts importProjectTasks does.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-bench-tb-'));
const imported = await importThinkingBox(config, {
  inputs: [fromRoot('tasks', 'thinkingbox', 'test_case')],
  split: 'train',
  dropSources: true,
  out: { dir, name: 'thinkingbox-bench' },
});
const allTasks = readTaskSet(imported.file).tasks.filter((t) => t.thinkingbox && t.golden.length > 0);
/** One task of each scenario in turn (each scenario's by id), so that a few tasks still cover every scenario. */
function spread(tasks: Task[]): Task[] {
  const by = new Map<string, Task[]>();
  for (const t of [...tasks].sort((a, b) => a.id.localeCompare(b.id)))
    by.set(t.domain, [...(by.get(t.domain) ?? []), t]);
  const lists = [...by.keys()].sort().map((k) => by.get(k)!);
  const out: Task[] = [];
  for (let i = 0; out.length < tasks.length; i++) for (const l of lists) if (l[i]) out.push(l[i]!);
  return out;
}
const tasks = spread(allTasks).slice(0, taskCount);
const specOf = (t: Task): SessionSpec => ({
  serverConfig: t.thinkingbox!.serverConfig,
  availableTools: t.thinkingbox!.availableTools,
});

const runtime = await createEpisodeRuntime(config, { controlConnections: concurrency + 4 });
const store = new EpisodeStore(runtime.control);
const runId = `bench-tb-${process.pid}-${Date.now().toString(36)}`;

/** The pool, noting how long each episode waited for its session. */
class TimedPool extends ThinkingBoxSessionPool {
  readonly waits: TakenSession[] = [];
  override async take(spec: SessionSpec): Promise<TakenSession> {
    const taken = await super.take(spec);
    this.waits.push(taken);
    return taken;
  }
}

interface Sample {
  wallMs: number;
  reward: number;
  finishReason: string;
  /** Named phases of the episode, ms. */
  phases: Record<string, number>;
}

interface Way {
  name: string;
  describe: string;
  /** Start processes and play one untimed episode. */
  setUp(): Promise<void>;
  /** Before each timed batch (untimed): warm the pool. */
  beforeBatch(): Promise<void>;
  play(i: number, slot: number, task: Task, batch: string): Promise<Sample>;
  /** The batch's background work (the pool's refills and session destroys); timed. */
  drain(): Promise<void>;
  /** After each timed batch (untimed): per-episode figures known only afterwards, spares destroyed. */
  afterBatch(samples: Map<number, Sample>, batch: string): Promise<void>;
  /** The per-episode waits for a session in the batch just run, ms. */
  waits(): number[];
  close(): Promise<void>;
}

const OkPing = z.object({ ok: z.literal(true) }).loose();

function finalstateWay(name: string, spares: number, describe: string): Way {
  const sidecar = new ThinkingBoxSidecar(home.python);
  const pool = new TimedPool(proxy, { spares, timeoutSeconds, spareConfigurations: tasks.length });
  // the connections that hold episodes' leases while their records are stored, as workers/episode-runtime.ts sizes them
  const leases = controlPool(config, concurrency + 1);
  const runner = thinkingBoxRunner(
    config,
    runtime,
    { proxy, sessions: pool, sidecar, leases },
    (timeoutSeconds + 30) * 1000,
  );
  /** The pool's spares for every task's configuration, two configurations at a time. */
  const warm = async () => {
    if (spares === 0) return;
    const specs = [...new Map(tasks.map((t) => [JSON.stringify(specOf(t)), specOf(t)])).values()];
    await inParallel(specs.length, concurrency, (i) => pool.warm(specs[i]!));
  };
  /** The pool's background work in flight, refills and destroys. */
  const drain = () => pool.settled();
  const storeTimes = new Map<string, { storeMs: number; teardownMs: number }>();
  const episodeId = (batch: string, i: number) => `${runId}/${name}/${batch}/${i}`;
  const request = (id: string, task: Task) =>
    EpisodeRequest.parse({
      episodeId: id,
      taskId: task.id,
      taskSet: imported.manifestFile,
      trial: 0,
      policy: { kind: 'oracle' },
      user: { kind: 'scripted' },
      seed: 0,
      // every golden call and the closing message, as ThinkingBox's runner plays them (its tasks set no agent-turn
      // limit; the request's default of 12 would stop a task of 12 or more calls before its closing message)
      limits: { maxAgentTurns: task.golden.length + 2 },
    });
  return {
    name,
    describe,
    async setUp() {
      await sidecar.request({ op: 'ping' }, OkPing);
      await warm();
      await runner.run(request(episodeId('warmup', 0), tasks[0]!));
    },
    async beforeBatch() {
      await drain();
      await warm(); // after a drain every configuration has its spares again: nothing to create
      pool.waits.length = 0;
    },
    async play(i, _slot, task, batch) {
      const id = episodeId(batch, i);
      const started = performance.now();
      const outcome = await runner.run(request(id, task), { onStored: (t) => void storeTimes.set(id, t) });
      return {
        wallMs: performance.now() - started,
        reward: outcome.reward,
        finishReason: outcome.finishReason,
        phases: {},
      };
    },
    async afterBatch(samples, batch) {
      for (const [i, sample] of samples) {
        const id = episodeId(batch, i);
        const record: EpisodeRecord | undefined = await store.load(id);
        const after = storeTimes.get(id);
        if (!record) continue;
        const t = record.timings;
        const open = t.provisionMs ?? NaN;
        const connect = t.mcpSessionMs ?? NaN;
        sample.phases = {
          open,
          connect,
          // the conversation: policy, tool calls, user, the turn checkpoints and sent-call counts in the control database
          loop: t.totalMs - open - connect - t.gradingMs,
          grade: t.gradingMs,
          store: after?.storeMs ?? NaN,
          teardown: after?.teardownMs ?? NaN,
        };
      }
    },
    drain,
    waits: () => pool.waits.map((w) => w.waitMs),
    async close() {
      await pool.close();
      await sidecar.close();
      await leases.end();
    },
  };
}

function thinkingBoxWay(): Way {
  const sidecars = Array.from({ length: concurrency }, () => new ThinkingBoxSidecar(home.python));
  const creates: number[] = [];
  const run = (slot: number, task: Task) =>
    sidecars[slot]!.request(
      {
        op: 'run_oracle_thinkingbox',
        proxyUrl: proxy.url,
        timeoutSeconds,
        task: { query: task.query, userContext: task.userContext, golden: task.golden, thinkingbox: task.thinkingbox! },
      },
      OracleRunResponse,
    );
  return {
    name: 'thinkingbox',
    describe: `ThinkingBox's own runner: run_agent_user_loop + TestScript (sidecar op run_oracle_thinkingbox), one sidecar per slot`,
    async setUp() {
      await Promise.all(sidecars.map((s) => s.request({ op: 'ping' }, OkPing)));
      await Promise.all(sidecars.map((_, slot) => run(slot, tasks[0]!)));
    },
    async beforeBatch() {
      creates.length = 0;
    },
    async play(_i, slot, task) {
      const started = performance.now();
      const answer = await run(slot, task);
      creates.push(answer.phases.create! * 1000);
      return {
        wallMs: performance.now() - started,
        reward: answer.result ? answer.reward : 0,
        finishReason: answer.finishReason,
        phases: Object.fromEntries(Object.entries(answer.phases).map(([k, v]) => [k, v * 1000])),
      };
    },
    async afterBatch() {},
    async drain() {},
    waits: () => [...creates],
    async close() {
      await Promise.all(sidecars.map((s) => s.close()));
    },
  };
}

const ways: Way[] = [
  finalstateWay('finalstate-cold', 0, "finalstate's episode runner, sessions created cold (pool spares 0)"),
  finalstateWay(
    'finalstate-pool',
    SPARES,
    `finalstate's episode runner, pool spares ${SPARES} (warmed for every task first)`,
  ),
  thinkingBoxWay(),
];

interface Figures {
  episodes: number;
  wallMs: number;
  samples: Sample[];
  waits: number[];
  loads: string[];
}
const figures = new Map<string, Figures>(
  ways.map((w) => [w.name, { episodes: 0, wallMs: 0, samples: [], waits: [], loads: [] }]),
);
const loadAtStart = load();
const startedAll = performance.now();
try {
  for (const way of ways) await way.setUp();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ways : [...ways].reverse();
    for (const way of order) {
      await way.beforeBatch();
      const batch = `r${round}`;
      const samples = new Map<number, Sample>();
      const loadBefore = load();
      const started = performance.now();
      await inParallel(perRound, concurrency, async (i, slot) => {
        samples.set(i, await way.play(i, slot, tasks[(round * perRound + i) % tasks.length]!, batch));
      });
      await way.drain();
      const wallMs = performance.now() - started;
      const f = figures.get(way.name)!;
      f.waits.push(...way.waits());
      await way.afterBatch(samples, batch);
      f.episodes += samples.size;
      f.wallMs += wallMs;
      f.samples.push(...samples.values());
      f.loads.push(`${loadBefore}-${load()}`);
    }
  }
} finally {
  for (const way of ways) await way.close().catch(() => undefined);
  await runtime.control.query('DELETE FROM episodes WHERE starts_with(episode_id, $1)', [runId]).catch(() => undefined);
  await runtime.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

const rate = (name: string) => {
  const f = figures.get(name)!;
  return f.episodes / (f.wallMs / 1000);
};
const summary = ways.map((w) => {
  const f = figures.get(w.name)!;
  const phaseNames = [...new Set(f.samples.flatMap((s) => Object.keys(s.phases)))];
  return {
    way: w.name,
    describe: w.describe,
    episodes: f.episodes,
    seconds: r1(f.wallMs / 1000),
    episodesPerSecond: r2(rate(w.name)),
    episodeMsMedian: Math.round(median(f.samples.map((s) => s.wallMs))),
    sessionWaitMsMedian: Math.round(median(f.waits)),
    rewardOne: f.samples.filter((s) => s.reward === 1).length,
    finishReasons: [...new Set(f.samples.map((s) => s.finishReason))].join(', '),
    phasesMsMedian: Object.fromEntries(
      phaseNames.map((p) => [p, Math.round(median(f.samples.map((s) => s.phases[p]!)))]),
    ),
    load: f.loads,
  };
});
const ratios = {
  poolOverCold: r2(rate('finalstate-pool') / rate('finalstate-cold')),
  coldOverThinkingBox: r2(rate('finalstate-cold') / rate('thinkingbox')),
  poolOverThinkingBox: r2(rate('finalstate-pool') / rate('thinkingbox')),
};
const scenarios = [...new Set(tasks.map((t) => t.domain))];
const calls = tasks.map((t) => t.golden.length);

if (values.json)
  console.log(
    JSON.stringify({
      tasks: tasks.map((t) => t.id),
      concurrency,
      rounds,
      perRound,
      summary,
      ratios,
      load: loadAtStart,
    }),
  );
else {
  console.log(
    `ThinkingBox oracle episodes: ${tasks.length} of the project's ${allTasks.length} tasks (${scenarios.join(', ')}; ` +
      `${Math.min(...calls)}-${Math.max(...calls)} golden calls), ${perRound * rounds} episodes per way in ${rounds} rounds ` +
      `(order reversed every other round), ${concurrency} at once; proxy ${proxy.url}; ${os.cpus().length} cores; ` +
      `1-min load average at start ${loadAtStart}; whole run ${r1((performance.now() - startedAll) / 1000)} s`,
  );
  console.log(
    `  ${'way'.padEnd(16)} ${'episodes/s'.padStart(10)} ${'episode p50 ms'.padStart(14)} ${'session wait p50 ms'.padStart(19)} ${'graded 1'.padStart(9)}  phases p50 ms`,
  );
  for (const s of summary)
    console.log(
      `  ${s.way.padEnd(16)} ${s.episodesPerSecond.toFixed(2).padStart(10)} ${String(s.episodeMsMedian).padStart(14)} ` +
        `${String(s.sessionWaitMsMedian).padStart(19)} ${`${s.rewardOne}/${s.episodes}`.padStart(9)}  ` +
        Object.entries(s.phasesMsMedian)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
    );
  console.log(
    `  ratios (episodes/s): pool / cold ${ratios.poolOverCold.toFixed(2)}; finalstate-cold / thinkingbox ${ratios.coldOverThinkingBox.toFixed(2)}; ` +
      `finalstate-pool / thinkingbox ${ratios.poolOverThinkingBox.toFixed(2)}`,
  );
  const all = summary.every((s) => s.rewardOne === s.episodes);
  console.log(
    all ? '  every oracle episode graded 1 by both runners' : '  NOT every oracle episode was graded 1 (see graded 1)',
  );
  for (const s of summary)
    console.log(
      `  ${s.way}: ${s.describe}; finish: ${s.finishReasons}; 1-min load average over its batches: ${s.load.join(', ')}`,
    );
}

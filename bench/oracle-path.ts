// The oracle path without Temporal, to see what the environment costs an episode under load:
//   npm run build && node dist/bench/oracle-path.js [--concurrency 16] [--trials 8] [--json]
// The training pool's 18 tasks (pools/rl-pool, never the eval split) x --trials episodes go through the real
// DatabaseEpisodeRunner (createEpisodeRuntime: episode database, MCP tools, scripted user, grading, the record in the
// control database), --concurrency at once, with the oracle policy: model time is about 0, so what is measured is the
// environment. Times per episode come from the stored records (the same `timings` bench/episodes.ts reads), after a
// warm-up round (one episode per task: templates built, expected states cached, spares made). Only the runtime's
// public API is used, so the same file builds against an older commit for a before/after comparison.
// Prints figures; asserts nothing.
import { BENCH_TRAINING_TASKS, benchTrainingTasks } from './training-tasks.js';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '../workers/config.js';
import { EpisodeLimits, type EpisodeRecord, type EpisodeRequest } from '../schemas/episode.js';
import { createEpisodeRuntime } from '../workers/episode-runtime.js';

process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '16' },
    trials: { type: 'string', default: '8' },
    label: { type: 'string', default: '' },
    json: { type: 'boolean', default: false },
  },
});
const concurrency = Number(values.concurrency);
const trials = Number(values.trials);
const source = BENCH_TRAINING_TASKS;

const r1 = (x: number) => Math.round(x * 10) / 10;
function stats(xs: number[]) {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: r1(at(0.5)), p95: r1(at(0.95)), mean: r1(sorted.reduce((a, b) => a + b, 0) / sorted.length) };
}

async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const config = loadConfig();
const tasks = await benchTrainingTasks();
const runtime = await createEpisodeRuntime(config, { controlConnections: concurrency + 2 });
const campaignId = `bench-oracle-path-${process.pid}-${Date.now()}`;
const teardown = new Map<string, number>();

function request(episodeId: string, taskId: string, trial: number): EpisodeRequest {
  return {
    episodeId,
    taskId,
    taskSet: source.taskSet,
    trial,
    campaignId,
    policy: { kind: 'oracle' },
    user: { kind: 'scripted' },
    limits: EpisodeLimits.parse({}),
    seed: 1,
  };
}

async function run(prefix: string, plan: { taskId: string; trial: number }[]) {
  const started = performance.now();
  await inParallel(plan, concurrency, async ({ taskId, trial }) => {
    const id = `${campaignId}/${prefix}/${taskId}/t${trial}`;
    await runtime.runner.run(request(id, taskId, trial), {
      onStored: (t) => void teardown.set(id, t.teardownMs),
    });
  });
  return performance.now() - started;
}

try {
  await run(
    'warm-up',
    tasks.map((t) => ({ taskId: t.taskId, trial: 0 })),
  );
  const plan = Array.from({ length: trials }, (_, trial) => tasks.map((t) => ({ taskId: t.taskId, trial }))).flat();
  const loadBefore = os.loadavg();
  const wallMs = await run('burst', plan);
  const loadAfter = os.loadavg();
  const records = (
    await runtime.control.query<{ episode_id: string; record: EpisodeRecord }>(
      "SELECT episode_id, record FROM episodes WHERE starts_with(episode_id, $1 || '/burst/')",
      [campaignId],
    )
  ).rows;
  const pick = (f: (t: EpisodeRecord['timings'], r: EpisodeRecord) => number) =>
    stats(records.map((r) => f(r.record.timings, r.record)));
  const calls = records.reduce((n, r) => n + r.record.toolCalls.length, 0);
  const figures = {
    label: values.label || undefined,
    episodes: records.length,
    passed: records.filter((r) => r.record.outcome.reward === 1).length,
    concurrency,
    toolCallsPerEpisode: r1(calls / records.length),
    episodesPerSecond: Number((records.length / (wallMs / 1000)).toFixed(2)),
    loadAverage: { before: loadBefore.map(r1), after: loadAfter.map(r1) },
    ms: {
      provision: pick((t) => t.provisionMs ?? NaN),
      mcpSession: pick((t) => t.mcpSessionMs ?? NaN),
      tools: pick((t) => t.toolsMs),
      toolsPerCall: pick((t, r) => t.toolsMs / Math.max(1, r.toolCalls.length)),
      grading: pick((t) => t.gradingMs),
      runner: pick((t) => t.totalMs),
      teardown: stats(records.map((r) => teardown.get(r.episode_id) ?? NaN)),
    },
  };
  if (values.json) console.log(JSON.stringify(figures, null, 2));
  else {
    const f = figures;
    console.log(
      `oracle path${f.label ? ` (${f.label})` : ''}: ${f.episodes} episodes (${f.passed} passed, ${f.toolCallsPerEpisode} tool calls each), ${concurrency} at once, no Temporal; ` +
        `${f.episodesPerSecond} episodes/s; load average ${f.loadAverage.before.join(' ')} before, ${f.loadAverage.after.join(' ')} after; ms per episode:`,
    );
    for (const [name, s] of Object.entries(f.ms))
      console.log(
        `  ${name.padEnd(12)} p50 ${String(s.p50).padStart(7)}  p95 ${String(s.p95).padStart(7)}  mean ${String(s.mean).padStart(7)}`,
      );
  }
} finally {
  await runtime.control.query('DELETE FROM episodes WHERE campaign_id = $1', [campaignId]).catch(() => undefined);
  await runtime.close();
}

// Orchestration overhead of one GRPO step of 144 episodes (18 groups x 8 rollouts) on this machine:
//   npx tsc -p tsconfig.json && node dist/bench/orchestration.js [--concurrency 8] [--turn-ms 0]
// Episodes come from the seeded random stand-in runner, so what is measured is Temporal dispatch, heartbeats, result
// rows in PostgreSQL and the step's batch/update/publish activities; provisioning, MCP and grading come with the real
// runner. The baseline is the same runner called directly in this process, measured in the same run.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { EpisodeRequest } from '../schemas/episode.js';
import { grpoStep } from '../workflows/grpo-step.js';
import { grpoStepInput } from '../workflows/inputs.js';
import { startPipeline, task } from '../testkit/pipeline/harness.js';
import { SeededRandomEpisodeRunner } from '../testkit/pipeline/seeded-random-runner.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '8' },
    'turn-ms': { type: 'string', default: '0' },
    turns: { type: 'string', default: '3' },
  },
});
const concurrency = Number(values.concurrency);
const turnDelayMs = Number(values['turn-ms']);
const turns = Number(values.turns);
const GROUPS = 18;
const ROLLOUTS = 8;
const EPISODES = GROUPS * ROLLOUTS;

const tasks = Array.from({ length: GROUPS }, (_, i) => task(`bench-${String(i).padStart(2, '0')}`, 0.5));
const p = await startPipeline(tasks, { turns, turnDelayMs }, concurrency);
const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
try {
  // Baseline: the runner alone, 144 episodes, `concurrency` at a time, in this process.
  const direct = new SeededRandomEpisodeRunner({
    tasks: new Map(tasks.map((t) => [t.taskId, t])),
    artifacts: p.artifacts,
    turns,
    turnDelayMs,
  });
  const config = p.campaignConfig({
    groupsPerStep: GROUPS,
    rolloutsPerGroup: ROLLOUTS,
    maxReplacementRounds: 0,
    allowPartialUpdate: true,
  });
  const input = grpoStepInput(config, { pool: tasks.map((t) => t.taskId), sampler: { epoch: 0, cursor: 0 } }, 1);
  const requests: EpisodeRequest[] = Array.from({ length: EPISODES }, (_, i) => ({
    ...input.settings,
    episodeId: `baseline/${i}`,
    taskId: tasks[i % GROUPS]!.taskId,
    taskSet: p.taskSet,
    trial: i,
    seed: i,
  }));
  const baselineStart = performance.now();
  const durations: number[] = [];
  for (let i = 0; i < EPISODES; i += concurrency) {
    await Promise.all(
      requests.slice(i, i + concurrency).map(async (r) => {
        const t0 = performance.now();
        await direct.run(r, { onTurn: () => undefined });
        durations.push(performance.now() - t0);
      }),
    );
  }
  const baselineWall = performance.now() - baselineStart;

  const workflowId = `${config.campaignId}/step-1`;
  const t0 = performance.now();
  const result = await p.client.workflow.execute(grpoStep, { taskQueue: p.queues.control, workflowId, args: [input] });
  const stepWall = performance.now() - t0;

  // Per-episode latency from the history: activity scheduled -> completed, and the episode phase's span.
  const history = await p.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<number, { id: string; at: number }>();
  const latencies: number[] = [];
  const started = new Map<number, number>();
  const executions: number[] = [];
  let firstScheduled = Infinity;
  let lastEpisodeDone = 0;
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(Number(e.eventId), { id: s.activityId ?? '', at: ms(e.eventTime) });
    const st = e.activityTaskStartedEventAttributes;
    if (st) started.set(Number(st.scheduledEventId), ms(e.eventTime));
    const c = e.activityTaskCompletedEventAttributes;
    if (c) {
      const from = scheduled.get(Number(c.scheduledEventId))!;
      if (/^g\d+-t\d+$/.test(from.id)) {
        latencies.push(ms(e.eventTime) - from.at);
        executions.push(ms(e.eventTime) - started.get(Number(c.scheduledEventId))!);
        firstScheduled = Math.min(firstScheduled, from.at);
        lastEpisodeDone = Math.max(lastEpisodeDone, ms(e.eventTime));
      }
    }
  }
  const episodePhase = lastEpisodeDone - firstScheduled;
  const runnerMean = durations.reduce((a, b) => a + b, 0) / durations.length;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  // With `concurrency` slots busy for the whole phase, each episode holds a slot this long on average.
  const slotMsPerEpisode = (episodePhase * concurrency) / latencies.length;
  const figures = {
    episodes: latencies.length,
    episodeWorkerConcurrency: concurrency,
    simulatedModelMsPerEpisode: turns * turnDelayMs,
    runnerAloneMsPerEpisode: Number(runnerMean.toFixed(2)),
    runnerAloneEpisodesPerSecond: Number((EPISODES / (baselineWall / 1000)).toFixed(1)),
    startedToCompletedMs: {
      mean: Number(mean(executions).toFixed(1)),
      p50: Number(quantile(executions, 0.5).toFixed(1)),
      p95: Number(quantile(executions, 0.95).toFixed(1)),
    },
    scheduledToCompletedMs: {
      mean: Number(mean(latencies).toFixed(1)),
      p95: Number(quantile(latencies, 0.95).toFixed(1)),
    },
    slotMsPerEpisode: Number(slotMsPerEpisode.toFixed(1)),
    orchestrationOverheadMsPerEpisode: Number((slotMsPerEpisode - runnerMean).toFixed(1)),
    episodePhaseSeconds: Number((episodePhase / 1000).toFixed(2)),
    episodesPerSecondOneWorker: Number((latencies.length / (episodePhase / 1000)).toFixed(1)),
    stepWallSeconds: Number((stepWall / 1000).toFixed(2)),
    afterEpisodesSeconds: Number(((stepWall - episodePhase) / 1000).toFixed(2)),
    groupsUsed: result.groupsUsed,
  };
  console.log(JSON.stringify(figures, null, 2));
  console.log(
    `\n144-episode GRPO step, one episode worker (${concurrency} at once), stand-in runner (${turns} turns x ${turnDelayMs} ms):\n` +
      `  runner alone          ${figures.runnerAloneMsPerEpisode} ms/episode (${figures.runnerAloneEpisodesPerSecond} episodes/s)\n` +
      `  through Temporal      ${figures.slotMsPerEpisode} ms of a worker slot per episode; started->completed ${figures.startedToCompletedMs.mean} ms (p95 ${figures.startedToCompletedMs.p95}); scheduled->completed ${figures.scheduledToCompletedMs.mean} ms (queueing included)\n` +
      `  overhead              ${figures.orchestrationOverheadMsPerEpisode} ms/episode (slot time minus runner time: dispatch, heartbeats, persistence)\n` +
      `  one worker sustains   ${figures.episodesPerSecondOneWorker} episodes/s (episode phase ${figures.episodePhaseSeconds} s)\n` +
      `  whole step            ${figures.stepWallSeconds} s (rows, batch, policy update stand-in, publish: ${figures.afterEpisodesSeconds} s)`,
  );
} finally {
  await p.close();
}

// Workflow-task latency and history size against campaign size, for evaluation children that renew their history
// (the default bounds) and, measured in the same run, with episodesPerChildRun lifted (only the size bound left):
//   npx tsc -p tsconfig.json && node dist/bench/histories.js [--sizes 96,384,1536] [--concurrency 16]
// Episodes come from the seeded random stand-in runner, so what grows is only the workflow's own history.
import { parseArgs } from 'node:util';
import proto from '@temporalio/proto';
import { CampaignConfig } from '../schemas/campaign.js';
import { evaluation } from '../workflows/evaluation.js';
import { episodeSettings } from '../workflows/inputs.js';
import { startPipeline, task } from '../testkit/pipeline/harness.js';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '96,384,1536' }, concurrency: { type: 'string', default: '16' } },
});
const sizes = values.sizes.split(',').map(Number);
const K = 8;
const defaultPerRun = CampaignConfig.shape.episodesPerChildRun.parse(undefined);
const maxTasks = Math.max(...sizes) / K;
const tasks = Array.from({ length: maxTasks }, (_, i) => task(`h-${String(i).padStart(4, '0')}`, 0.5, 'eval'));
const p = await startPipeline(tasks, { turns: 1, withoutTrajectory: true }, Number(values.concurrency));
const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

interface RunFigures {
  runs: number;
  maxEvents: number;
  maxBytes: number;
  maxTaskMs: number;
  p95TaskMs: number;
}

async function measure(workflowId: string): Promise<RunFigures> {
  const taskMs: number[] = [];
  let runs = 0;
  let maxEvents = 0;
  let maxBytes = 0;
  for (let runId: string | undefined; ; runs++) {
    const history = await p.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    maxEvents = Math.max(maxEvents, events.length);
    maxBytes = Math.max(maxBytes, proto.temporal.api.history.v1.History.encode(history).finish().length);
    const started = new Map<number, number>();
    for (const e of events) {
      if (e.workflowTaskStartedEventAttributes) started.set(Number(e.eventId), ms(e.eventTime));
      const done = e.workflowTaskCompletedEventAttributes;
      if (done) taskMs.push(ms(e.eventTime) - started.get(Number(done.startedEventId))!);
    }
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) break;
  }
  taskMs.sort((a, b) => a - b);
  return {
    runs: runs + 1,
    maxEvents,
    maxBytes,
    maxTaskMs: taskMs.at(-1) ?? 0,
    p95TaskMs: taskMs[Math.floor(0.95 * (taskMs.length - 1))] ?? 0,
  };
}

try {
  const rows: string[] = [];
  for (const size of sizes) {
    for (const [label, perRun] of [
      ['bounded', defaultPerRun],
      ['size bound only', 1_000_000],
    ] as const) {
      const config = p.campaignConfig({ seed: size });
      const source = { taskSet: p.taskSet, split: 'eval' as const, limit: size / K };
      const resultSet = `${config.campaignId}/eval-step-0`;
      const t0 = Date.now();
      await p.client.workflow.execute(evaluation, {
        taskQueue: p.queues.control,
        workflowId: resultSet,
        args: [
          {
            campaignId: config.campaignId,
            resultSet,
            step: 0,
            source,
            k: K,
            window: 32,
            episodesPerRun: perRun,
            settings: episodeSettings(config, config.policy),
          },
        ],
      });
      const wall = Date.now() - t0;
      const f = await measure(resultSet);
      rows.push(
        `| ${size} | ${label} | ${f.runs} | ${f.maxEvents} | ${(f.maxBytes / 1024).toFixed(0)} KiB | ${f.p95TaskMs.toFixed(0)} ms | ${f.maxTaskMs.toFixed(0)} ms | ${(wall / 1000).toFixed(1)} s |`,
      );
      console.error(rows.at(-1));
    }
  }
  console.log(
    `episodesPerChildRun default ${defaultPerRun}; seeded stand-in runner, ${values.concurrency} episodes at once\n`,
  );
  console.log(
    '| episodes | history | runs | max events per run | max history per run | workflow task p95 | workflow task max | wall |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await p.close();
}

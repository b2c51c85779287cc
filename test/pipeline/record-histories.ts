// Re-records test/fixtures/histories/*.json from real runs on the dev server (with the seeded random stand-in runner):
//   npx tsc -p tsconfig.json && node dist/test/pipeline/record-histories.js
// Re-record after an intended change to workflow code; replay.test.ts then guards that change from here on.
// `--only async` records the asynchronous campaign's histories alone, keeping the others (recorded by older code).
import fs from 'node:fs';
import { campaign } from '../../workflows/campaign/index.js';
import { pauseSignal, resumeSignal, setMaxStepsUpdate, statusQuery } from '../../workflows/definitions.js';
import { grpoStep } from '../../workflows/grpo-step.js';
import { grpoStepInput } from '../../workflows/inputs.js';
import { HISTORIES_DIR, saveHistory } from './histories.js';
import { startPipeline, task } from '../../testkit/pipeline/harness.js';

const tasks = [
  task('always-pass', 1),
  task('half-a', 0.5),
  task('half-b', 0.4),
  task('half-c', 0.6),
  task('never-pass', 0),
  task('e-1', 0.5, 'eval'),
  task('e-2', 0.7, 'eval'),
];
const outages = new Map<string, number>();
const only = process.argv[2] === '--only' ? process.argv[3] : undefined;
if (only !== undefined && only !== 'async') throw new Error(`--only takes "async", not ${only}`);
const written: string[] = [];
const p = await startPipeline(tasks, { outages, seed: 1 }, 8, { turnsFollowServedVersion: only === 'async' });
try {
  if (only === 'async') await recordAsync();
  else await recordAll();
  for (const file of written) console.log(`recorded ${file} (${(fs.statSync(file).size / 1024).toFixed(0)} KiB)`);
} finally {
  await p.close();
}

/** An asynchronous campaign (K = 1): step 2 collects while step 1 trains, an evaluation between, a renewal after 2. */
async function recordAsync(): Promise<void> {
  const config = p.campaignConfig({
    campaignId: 'replay-async',
    steps: 3,
    async: { maxStaleness: 1 },
    continueAsNewEverySteps: 2,
    evaluation: { everySteps: 1, k: 2, window: 8 },
    keepZeroVarianceGroups: true,
    seed: 8,
  });
  // Each update waits until the next step's rollouts have started, so the recorded steps overlap.
  p.gpu.hooks.beforeUpdate = async (input) => {
    if (input.step >= 2) return;
    while (![...p.runner.attempts.keys()].some((e) => e.startsWith(`${config.campaignId}/step-${input.step + 1}/`)))
      await new Promise((resolve) => setTimeout(resolve, 50));
  };
  const handle = await p.client.workflow.start(campaign, {
    taskQueue: p.queues.control,
    workflowId: config.campaignId,
    args: [{ config }],
  });
  await handle.result();
  written.push(await saveHistory(p.client, 'async-campaign-first-run', config.campaignId, handle.firstExecutionRunId));
  for (const child of ['step-1', 'step-2'])
    written.push(await saveHistory(p.client, `async-campaign-${child}`, `${config.campaignId}/${child}`));
}

async function recordAll(): Promise<void> {
  fs.rmSync(HISTORIES_DIR, { recursive: true, force: true });

  // A campaign whose history is renewed after each step (continueAsNew) and whose step 2 meets an outage.
  const mini = p.campaignConfig({
    campaignId: 'replay-mini',
    steps: 2,
    continueAsNewEverySteps: 1,
    episodesPerChildRun: 12,
    seed: 4,
  });
  outages.set('replay-mini/step-2/g0-t0', 1);
  const handle = await p.client.workflow.start(campaign, {
    taskQueue: p.queues.control,
    workflowId: mini.campaignId,
    args: [{ config: mini }],
  });
  await handle.result();
  written.push(await saveHistory(p.client, 'campaign-first-run', mini.campaignId, handle.firstExecutionRunId));
  written.push(await saveHistory(p.client, 'campaign-last-run', mini.campaignId));
  for (const child of ['probe', 'eval-step-0', 'step-1', 'step-2', 'eval-step-2'])
    written.push(await saveHistory(p.client, `campaign-${child}`, `${mini.campaignId}/${child}`));
  // The probe renewed its history every 12 episodes: follow its chain of runs back to the first one.
  let firstProbeRun: string | undefined;
  for (let runId: string | undefined; ;) {
    const history = await p.client.workflow.getHandle(`${mini.campaignId}/probe`, runId).fetchHistory();
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) break;
    firstProbeRun = runId = previous;
  }
  if (!firstProbeRun) throw new Error('the probe did not continue as new');
  written.push(await saveHistory(p.client, 'campaign-probe-first-run', `${mini.campaignId}/probe`, firstProbeRun));

  // A GRPO step with a zero-variance group (replaced) and an episode that outlasts its retries (group refilled).
  const step = p.campaignConfig({
    campaignId: 'replay-step',
    groupsPerStep: 3,
    rolloutsPerGroup: 4,
    maxReplacementRounds: 4,
    seed: 9,
  });
  outages.set('replay-step/step-1/g1-t2', Infinity);
  await p.client.workflow.execute(grpoStep, {
    taskQueue: p.queues.control,
    workflowId: 'replay-step/step-1',
    args: [
      grpoStepInput(step, { pool: ['always-pass', 'half-a', 'half-b', 'half-c'], sampler: { epoch: 0, cursor: 0 } }, 1),
    ],
  });
  written.push(await saveHistory(p.client, 'grpo-step-dapo-and-outage', 'replay-step/step-1'));

  // A campaign steered by signals and an update: paused, maxSteps lowered, resumed.
  const steered = p.campaignConfig({ campaignId: 'replay-steered', steps: 20, seed: 6 });
  const steeredHandle = await p.client.workflow.start(campaign, {
    taskQueue: p.queues.control,
    workflowId: steered.campaignId,
    args: [{ config: steered }],
  });
  await steeredHandle.signal(pauseSignal);
  await steeredHandle.query(statusQuery);
  await steeredHandle.executeUpdate(setMaxStepsUpdate, { args: [1] });
  await steeredHandle.signal(resumeSignal);
  await steeredHandle.result();
  written.push(await saveHistory(p.client, 'campaign-steered', steered.campaignId));

  // A campaign that re-probes its pool after step 1 (a task solved by then leaves, one made learnable enters), then
  // continues as new. Its own pipeline, so that the tasks that change with training leave the scenarios above alone.
  const q = await startPipeline(
    [
      { ...task('half-a', 0.5), trainedSuccessRate: 0.5 },
      { ...task('half-b', 0.5), trainedSuccessRate: 1 },
      { ...task('learnable', 0), trainedSuccessRate: 0.5 },
      task('e-1', 0.5, 'eval'),
    ],
    { seed: 1 },
  );
  try {
    const reprobing = q.campaignConfig({
      campaignId: 'replay-reprobe',
      steps: 2,
      reprobe: { everySteps: 1, n: 6 },
      continueAsNewEverySteps: 1,
      keepZeroVarianceGroups: true,
      seed: 2,
    });
    const reprobeHandle = await q.client.workflow.start(campaign, {
      taskQueue: q.queues.control,
      workflowId: reprobing.campaignId,
      args: [{ config: reprobing }],
    });
    await reprobeHandle.result();
    written.push(
      await saveHistory(
        q.client,
        'campaign-reprobe-first-run',
        reprobing.campaignId,
        reprobeHandle.firstExecutionRunId,
      ),
    );
    written.push(await saveHistory(q.client, 'campaign-reprobe-step-1', `${reprobing.campaignId}/reprobe-step-1`));
  } finally {
    await q.close();
  }
  await recordAsync();
}

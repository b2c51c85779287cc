import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { localPathOf } from '../../storage/artifacts.js';
import { PoolSwap } from '../../schemas/results.js';
import { swapPool } from '../../stats/pool-swap.js';
import { subSeed } from '../../stats/random.js';
import { campaign, statusOf } from '../../workflows/campaign/index.js';
import { drawTasks } from '../../workflows/sampling.js';
import { poolVersionText } from '../../cli/progress.js';
import { startPipeline, task, type Pipeline } from '../../testkit/pipeline/harness.js';
import type { SamplerState } from '../../schemas/campaign.js';
import { groupByTask } from '../../stats/result-set.js';
import { readResultSet } from '../../storage/results.js';

// The seeded random stand-in runner (test/pipeline/seeded-random-runner.ts) with tasks whose success rate changes once
// the policy has been trained: `solved` becomes always solved, `learnable` goes from never to half the time.
const tasks = [
  { ...task('mid-a', 0.5), trainedSuccessRate: 0.5 },
  { ...task('mid-b', 0.45), trainedSuccessRate: 0.5 },
  { ...task('solved', 0.5), trainedSuccessRate: 1 },
  { ...task('learnable', 0), trainedSuccessRate: 0.5 },
  task('never', 0),
  task('always', 1),
  task('e-1', 0.5, 'eval'),
  task('e-2', 0.3, 'eval'),
];
let p: Pipeline;

before(async () => {
  p = await startPipeline(tasks);
});
after(async () => {
  await p?.close();
});

test('re-probing after step 2 swaps the solved task for the one training made learnable, and records the versions', async () => {
  const config = p.campaignConfig({
    steps: 3,
    reprobe: { everySteps: 2, n: 6 },
    // A fresh history right after the re-probe: the new pool and its history are carried into the next run.
    continueAsNewEverySteps: 2,
    keepZeroVarianceGroups: true,
    seed: 5,
  });
  const id = config.campaignId;
  const handle = await p.startCampaign(config);
  const { state } = await handle.result();
  assert.equal(state.phase, 'done');
  assert.equal(state.step, 3);
  assert.equal(state.runs, 2, 'one continueAsNew, after step 2 and its re-probe');

  const history = state.poolHistory!;
  assert.equal(history.length, 2, 'the frozen pool and the one re-probe (after step 2; none after the last step)');
  const [frozen, swapped] = history as [NonNullable<typeof history>[0], NonNullable<typeof history>[0]];
  assert.deepEqual(
    { version: frozen.version, step: frozen.step, uri: frozen.uri, set: frozen.probeResultSet },
    { version: 0, step: 0, uri: state.poolUri, set: `${id}/probe` },
  );
  const initialPool = (JSON.parse(fs.readFileSync(localPathOf(state.poolUri!), 'utf8')) as { pool: string[] }).pool;
  assert.ok(initialPool.includes('solved') && !initialPool.includes('learnable'), `frozen pool ${initialPool}`);
  assert.equal(frozen.size, initialPool.length);

  // The re-probe ran every candidate (pool and the rest), 6 episodes each, with the step-2 policy.
  assert.equal(swapped.version, 1);
  assert.equal(swapped.step, 2);
  assert.equal(swapped.probeResultSet, `${id}/reprobe-step-2`);
  const rows = await readResultSet(p.pool, swapped.probeResultSet);
  assert.equal(rows.length, 6 * 6);
  assert.ok(
    rows.every((r) => r.step === 2 && r.policyVersion === '2'),
    'rows of the step-2 policy',
  );
  assert.ok(swapped.left.some((c) => c.taskId === 'solved' && c.k === 6 && c.n === 6 && c.bin === 4));
  assert.ok(swapped.entered.some((c) => c.taskId === 'learnable' && c.n === 6 && c.bin >= 1 && c.bin <= 3));
  assert.equal(swapped.size, initialPool.length, 'the pool keeps its size');
  // The recorded swap is the selection rule's on those rows, and the artifact holds every re-probed task.
  const expected = swapPool(initialPool, groupByTask(rows), {
    edges: config.selection.edges,
    seed: subSeed(config.selection.seed, 'reprobe-step-2'),
    domains: state.trainingDomains!,
  });
  assert.deepEqual(state.pool, expected.pool);
  const file = PoolSwap.parse(JSON.parse(fs.readFileSync(localPathOf(swapped.uri), 'utf8')));
  assert.deepEqual(file.pool, state.pool);
  assert.deepEqual(file.before, [...initialPool].sort());
  assert.equal(file.selection.records.length, 6);
  assert.deepEqual(
    file.left.map((r) => r.taskId),
    swapped.left.map((c) => c.taskId),
  );

  // Step 3 drew from the new pool, from a fresh sampler epoch.
  const step2 = (await p.client.workflow.getHandle(`${id}/step-2`).result()) as { sampler: SamplerState };
  const drawn = drawTasks(state.pool!, config.seed, { epoch: step2.sampler.epoch + 1, cursor: 0 }, 2);
  const step3 = await p.rows(`${id}/step-3`);
  const firstGroups = [...new Set(step3.filter((r) => /\/g[01]-t\d+$/.test(r.episode_id)).map((r) => r.task_id))];
  assert.deepEqual(firstGroups.sort(), [...new Set(drawn.tasks)].sort());
  assert.ok(step3.every((r) => state.pool!.includes(r.task_id)));

  // Status shows the version; the re-probe's episodes count in the campaign's totals.
  assert.deepEqual(statusOf(id, state, null).poolVersion, {
    version: 1,
    step: 2,
    left: swapped.left.length,
    entered: swapped.entered.length,
  });
  assert.match(
    poolVersionText(statusOf(id, state, null).poolVersion!),
    new RegExp(
      `^pool v1 after step 2: ${swapped.left.length} tasks out \\(solved or hopeless\\), ${swapped.entered.length} in$`,
    ),
  );
  const probeRows = await p.rows(`${id}/probe`);
  let stepRows = 0;
  for (const s of [1, 2, 3]) stepRows += (await p.rows(`${id}/step-${s}`)).length;
  const evalRows = (await p.rows(`${id}/eval-step-0`)).length + (await p.rows(`${id}/eval-step-3`)).length;
  assert.equal(state.episodes.done, probeRows.length + rows.length + stepRows + evalRows);
});

test('without reprobe the campaign keeps its frozen pool and records no versions', async () => {
  const config = p.campaignConfig({ steps: 2, keepZeroVarianceGroups: true, seed: 5 });
  assert.equal('reprobe' in config, false);
  const { state } = await p.client.workflow.execute(campaign, {
    taskQueue: p.queues.control,
    workflowId: config.campaignId,
    args: [{ config }],
  });
  assert.equal(state.poolHistory, undefined);
  assert.equal('poolVersion' in statusOf(config.campaignId, state, null), false);
  const reprobeRows = await p.pool.query(
    'SELECT 1 FROM campaign_result_rows WHERE campaign_id = $1 AND result_set LIKE $2',
    [config.campaignId, `${config.campaignId}/reprobe%`],
  );
  assert.equal(reprobeRows.rowCount, 0);
  assert.ok((await p.rows(`${config.campaignId}/step-2`)).every((r) => state.pool!.includes(r.task_id)));
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { describeFailure } from '../../core/failure-causes.js';
import { localPathOf } from '../../storage/artifacts.js';
import { FrozenPool } from '../../schemas/results.js';
import { campaign, statusOf } from '../../workflows/campaign/index.js';
import { poolSummaryTable } from '../../stats/tables/layouts.js';
import { startPipeline, task, workflowFailure, type Pipeline } from '../../testkit/pipeline/harness.js';

// The solvability gate: a reference policy (reached through a chat API; here the seeded random stand-in runner plays
// it with each task's referenceSuccessRate) probes the candidates after the base probe, its rows are kept in their own
// result set, and selection keeps only the tasks it solved. `never-by-ref` is of middle difficulty for the base policy
// but the reference never solves it. The travel candidates are ones a weak reference (SmolLM2-135M) leaves: it solves
// none, so a gate would empty the pool.
const tasks = [
  { ...task('mid-a', 0.5), referenceSuccessRate: 1 },
  { ...task('mid-b', 0.5), referenceSuccessRate: 1 },
  { ...task('never-by-ref', 0.5), referenceSuccessRate: 0 },
  { ...task('t-mid-a', 0.5, 'train', 'travel'), referenceSuccessRate: 0 },
  { ...task('t-mid-b', 0.5, 'train', 'travel'), referenceSuccessRate: 0 },
  task('e-1', 0.5, 'eval'),
];
const REFERENCE = { baseUrl: 'http://127.0.0.1:9/v1', model: 'reference' };

/** The pipeline's campaign config on the candidates of one domain. */
function configOn(domain: string, overrides: Parameters<Pipeline['campaignConfig']>[0]) {
  const base = p.campaignConfig({
    steps: 1,
    keepZeroVarianceGroups: true,
    selection: { keep: [0, 1, 2, 3, 4] },
    ...overrides,
  });
  return { ...base, tasks: { ...base.tasks, train: { ...base.tasks.train, domains: [domain] } } };
}
let p: Pipeline;

before(async () => {
  p = await startPipeline(tasks);
});
after(async () => {
  await p?.close();
});

test('a reference probe gates the pool: rows beside the base probe, the unsolved task dropped, shown in status and report', async () => {
  const config = configOn('retail', { referenceProbe: { endpoint: REFERENCE, n: 2 } });
  const id = config.campaignId;
  const handle = await p.startCampaign(config);
  const { state } = await handle.result();
  assert.equal(state.phase, 'done');
  assert.equal(state.probeResultSet, `${id}/probe`);
  assert.equal(state.referenceResultSet, `${id}/probe-reference`);
  const referenceRows = await p.rows(`${id}/probe-reference`);
  assert.equal(referenceRows.length, 3 * 2, 'every training candidate, n = 2');
  assert.deepEqual(
    referenceRows
      .filter((r) => r.reward === 1)
      .map((r) => r.task_id)
      .sort(),
    ['mid-a', 'mid-a', 'mid-b', 'mid-b'],
  );
  assert.ok((await p.rows(`${id}/probe`)).length >= 3 * 4, "the base probe's rows are untouched");

  assert.deepEqual(state.pool, ['mid-a', 'mid-b']);
  const frozen = FrozenPool.parse(JSON.parse(fs.readFileSync(localPathOf(state.poolUri!), 'utf8')));
  assert.equal(frozen.solvabilityFilter, true);
  assert.equal(frozen.records.find((r) => r.taskId === 'never-by-ref')?.reason, 'unsolved-by-reference');

  const status = statusOf(id, state, null);
  assert.deepEqual(status.solvabilityGate, {
    referenceResultSet: `${id}/probe-reference`,
    applied: true,
    dropped: 1,
    solved: 2,
  });
  const table = poolSummaryTable(frozen);
  assert.match(table.title, /solvability gate: 1 dropped as never solved by the reference/);
  assert.ok(table.headers.includes('Unsolved by the reference'));
});

test('without a reference probe, no gate and no reference rows', async () => {
  const config = configOn('retail', {});
  const handle = await p.startCampaign(config);
  const { state } = await handle.result();
  assert.equal(state.referenceResultSet, undefined);
  assert.equal(statusOf(config.campaignId, state, null).solvabilityGate, undefined);
  assert.deepEqual([...(state.pool ?? [])].sort(), ['mid-a', 'mid-b', 'never-by-ref']);
});

test('a reference that solves no candidate: the gate refuses to select with the reference and the counts named', async () => {
  const config = configOn('travel', { referenceProbe: { endpoint: REFERENCE, n: 2 } });
  const handle = await p.startCampaign(config);
  const err = await workflowFailure(handle);
  const message = describeFailure(err);
  assert.match(
    message,
    /the solvability gate dropped every candidate: the reference reference at http:\/\/127\.0\.0\.1:9\/v1 solved 0 of 2 probed candidates/,
  );
  assert.match(message, /all 2 candidates of the kept bins 0,1,2,3,4 are ones it never solved/);
  assert.match(message, /referenceProbe\.gate to false/);
  assert.doesNotMatch(message, /widen selection\.keep/);
  assert.equal((await p.rows(`${config.campaignId}/probe-reference`)).length, 2 * 2, 'the reference rows are kept');
});

test('referenceProbe.gate false: the reference rows are recorded and counted, the pool is not gated', async () => {
  const config = configOn('travel', { referenceProbe: { endpoint: REFERENCE, n: 1, gate: false } });
  const { state } = await p.client.workflow.execute(campaign, {
    taskQueue: p.queues.control,
    workflowId: config.campaignId,
    args: [{ config }],
  });
  assert.equal(state.phase, 'done');
  assert.deepEqual([...(state.pool ?? [])].sort(), ['t-mid-a', 't-mid-b']);
  assert.equal((await p.rows(`${config.campaignId}/probe-reference`)).length, 2);
  const frozen = FrozenPool.parse(JSON.parse(fs.readFileSync(localPathOf(state.poolUri!), 'utf8')));
  assert.equal(frozen.solvabilityFilter, false);
  assert.deepEqual(statusOf(config.campaignId, state, null).solvabilityGate, {
    referenceResultSet: `${config.campaignId}/probe-reference`,
    applied: false,
    dropped: 2,
    solved: 0,
  });
});

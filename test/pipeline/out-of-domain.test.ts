import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { listSourceTasks, manifestTaskLister } from '../../activities/tasks.js';
import type { MetricsReport } from '../../stats/metrics.js';
import { campaign } from '../../workflows/campaign/index.js';
import { startPipeline, task, type Pipeline } from '../../testkit/pipeline/harness.js';

// A campaign that trains on retail only and evaluates on retail and travel: travel is out-of-domain. Episodes come
// from the seeded random stand-in runner; Temporal and PostgreSQL are the real shared stack.
const tasks = [
  task('r-mid-a', 0.5),
  task('r-mid-b', 0.5),
  task('r-mid-c', 0.4),
  task('v-train', 0.5, 'train', 'travel'),
  task('r-e-1', 0.6, 'eval'),
  task('r-e-2', 0.4, 'eval'),
  task('v-e-1', 0.5, 'eval', 'travel'),
  task('v-e-2', 0.3, 'eval', 'travel'),
];
let p: Pipeline;

before(async () => {
  p = await startPipeline(tasks);
});
after(async () => {
  await p?.close();
});

test('a task source keeps only the domains it names, and names a domain the task set lacks', async () => {
  const retail = await listSourceTasks(manifestTaskLister, {
    taskSet: p.taskSet,
    split: 'train',
    domains: ['retail'],
  });
  assert.deepEqual(
    retail.map((t) => t.taskId),
    ['r-mid-a', 'r-mid-b', 'r-mid-c'],
  );
  await assert.rejects(
    listSourceTasks(manifestTaskLister, { taskSet: p.taskSet, split: 'train', domains: ['retail', 'insurance'] }),
    /no tasks of domain insurance \(it has retail, travel\)/,
  );
});

test('a campaign trains on its training domains and reports every evaluation in-domain and out-of-domain', async () => {
  const base = p.campaignConfig({ steps: 1, seed: 3, maxReplacementRounds: 6 });
  const config = { ...base, tasks: { train: { ...base.tasks.train, domains: ['retail'] }, eval: base.tasks.eval } };
  const { state } = await p.client.workflow.execute(campaign, {
    taskQueue: p.queues.control,
    workflowId: config.campaignId,
    args: [{ config }],
  });

  assert.deepEqual(state.trainingDomains, ['retail']);
  assert.ok(
    state.pool!.every((id) => id.startsWith('r-')),
    `the pool holds training-domain tasks only: ${state.pool!.join(',')}`,
  );
  const rows = await p.rows(`${config.campaignId}/step-1`);
  assert.ok(rows.length > 0 && rows.every((r) => r.task_id.startsWith('r-')), 'GRPO drew only training-domain tasks');

  for (const { resultSet } of state.evalResultSets) {
    const report = JSON.parse(
      fs.readFileSync(path.join(p.artifacts.root, ...resultSet.split('/'), 'metrics.json'), 'utf8'),
    ) as MetricsReport;
    assert.deepEqual(report.trainingDomains, ['retail']);
    assert.equal(report.byDistribution!['in-domain']!.tasks, 2, resultSet);
    assert.equal(report.byDistribution!['out-of-domain']!.tasks, 2, resultSet);
    assert.equal(report.byDistribution!['out-of-domain']!.pass1, report.byDomain.travel!.pass1);
  }
});

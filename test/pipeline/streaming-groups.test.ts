import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Worker } from '@temporalio/worker';
import { readTrainingBatch } from '../../storage/training-batch.js';
import { seededRandom, subSeed } from '../../stats/random.js';
import { grpoStep } from '../../workflows/grpo-step.js';
import { grpoStepInput } from '../../workflows/inputs.js';
import { epochOrder } from '../../workflows/sampling.js';
import { sharedWorkflowBundle } from '../../testkit/pipeline/bundle.js';
import { startPipeline, task, type Pipeline } from '../../testkit/pipeline/harness.js';

// Streaming replacement in a GRPO step, with the seeded random stand-in runner; `slow` is a straggler task whose
// every turn takes 1.5 s, the others take none.
const SLOW_MS = 1500;
const tasks = [
  task('slow', 0.5),
  task('always-pass', 1),
  task('half-a', 0.5),
  task('half-b', 0.5),
  task('half-c', 0.5),
];
let p: Pipeline;

before(async () => {
  p = await startPipeline(tasks, { taskTurnDelayMs: new Map([['slow', SLOW_MS]]), turns: 1 }, 16);
});
after(async () => {
  await p?.close();
});

/** A campaign seed whose first epoch puts `taskId` at `position` of the pool's draw order. */
function seedPlacing(pool: string[], taskId: string, position: number): number {
  for (let seed = 0; seed < 10_000; seed++) if (epochOrder(pool, seed, 0)[position] === taskId) return seed;
  throw new Error('no seed');
}

/** Whether the stand-in runner gives group `g` of step 1 both rewards (its rewards depend only on the episode id). */
function informative(group: number, rollouts: number, successRate: number): boolean {
  const rewards = Array.from({ length: rollouts }, (_, t) =>
    seededRandom(subSeed(0, `/step-1/g${group}-t${t}`))() < successRate ? 1 : 0,
  );
  return new Set(rewards).size === 2;
}

interface Timed {
  scheduled: Map<string, number>;
  completed: Map<string, number>;
}
async function activityTimes(
  workflowId: string,
): Promise<
  Timed & { history: Awaited<ReturnType<ReturnType<Pipeline['client']['workflow']['getHandle']>['fetchHistory']>> }
> {
  const history = await p.client.workflow.getHandle(workflowId).fetchHistory();
  const ids = new Map<number, string>();
  const scheduled = new Map<string, number>();
  const completed = new Map<string, number>();
  const ms = (t: unknown) => {
    const ts = t as { seconds?: { toNumber(): number } | number; nanos?: number };
    const seconds = typeof ts.seconds === 'number' ? ts.seconds : (ts.seconds?.toNumber() ?? 0);
    return seconds * 1000 + (ts.nanos ?? 0) / 1e6;
  };
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s?.activityId) {
      ids.set(Number(e.eventId), s.activityId);
      scheduled.set(s.activityId, ms(e.eventTime));
    }
    const c = e.activityTaskCompletedEventAttributes;
    if (c) completed.set(ids.get(Number(c.scheduledEventId))!, ms(e.eventTime));
  }
  return { scheduled, completed, history };
}

test('a zero-variance group is replaced the moment it is known, while a straggler group still runs', async () => {
  const pool = ['always-pass', 'slow'];
  const seed = seedPlacing(pool, 'always-pass', 0);
  assert.ok(informative(1, 4, 0.5), 'the stand-in gives the slow group g1 both rewards');
  const config = p.campaignConfig({ groupsPerStep: 2, rolloutsPerGroup: 4, maxReplacementRounds: 3, seed });
  const workflowId = `${config.campaignId}/step-1`;
  const result = await p.client.workflow.execute(grpoStep, {
    taskQueue: p.queues.control,
    workflowId,
    args: [grpoStepInput(config, { pool, sampler: { epoch: 0, cursor: 0 } }, 1)],
  });

  assert.ok(result.replacements >= 1);
  const { scheduled, completed } = await activityTimes(workflowId);
  const slowDone = Math.min(...[0, 1, 2, 3].map((t) => completed.get(`g1-t${t}`)!));
  assert.ok(
    scheduled.get('g2-t0')! < slowDone,
    `the replacement g2 started ${(slowDone - scheduled.get('g2-t0')!).toFixed(0)} ms before the straggler g1 finished`,
  );
});

test('surplus groups hide a straggler, yet the batch is the first G usable groups in draw order, and a replay picks it again', async () => {
  const pool = ['slow', 'half-a', 'half-b', 'half-c'];
  const rollouts = 4;
  // g0 is the straggler; g1..g3 finish first. Completion order would train on two of g1..g3.
  const seed = seedPlacing(pool, 'slow', 0);
  const expected = [0, 1, 2, 3, 4, 5, 6, 7].filter((g) => informative(g, rollouts, 0.5)).slice(0, 2);
  assert.equal(expected[0], 0, 'the stand-in gives the straggler g0 both rewards');
  const config = p.campaignConfig({
    groupsPerStep: 2,
    rolloutsPerGroup: rollouts,
    maxReplacementRounds: 3,
    extraGroupsInFlight: 2,
    seed,
  });
  const workflowId = `${config.campaignId}/step-1`;
  const result = await p.client.workflow.execute(grpoStep, {
    taskQueue: p.queues.control,
    workflowId,
    args: [grpoStepInput(config, { pool, sampler: { epoch: 0, cursor: 0 } }, 1)],
  });

  const batch = await readTrainingBatch(result.batchUri);
  assert.deepEqual(
    [...new Set(batch.episodes.map((e) => e.groupId))],
    expected.map((g) => `g${g}`),
  );
  const { scheduled, completed, history } = await activityTimes(workflowId);
  assert.ok(scheduled.has('g2-t0') && scheduled.has('g3-t0'), 'two surplus groups ran beside the first two');
  assert.ok(completed.get('g2-t0')! < completed.get('g0-t0')!, 'a surplus group finished before the straggler');

  // The recorded history replays on the same workflow code: the batch is chosen by draw order, deterministically.
  await Worker.runReplayHistory({ workflowBundle: await sharedWorkflowBundle() }, history, workflowId);
});

test('once the first G usable groups are complete, surplus groups still running are cancelled and not trained on', async () => {
  const pool = ['slow', 'half-a', 'half-b', 'half-c'];
  const rollouts = 4;
  const seed = seedPlacing(pool, 'slow', 2);
  assert.ok(informative(0, rollouts, 0.5) && informative(1, rollouts, 0.5), 'g0 and g1 settle the batch');
  const config = p.campaignConfig({
    groupsPerStep: 2,
    rolloutsPerGroup: rollouts,
    maxReplacementRounds: 3,
    extraGroupsInFlight: 1,
    seed,
  });
  const workflowId = `${config.campaignId}/step-1`;
  const started = Date.now();
  const result = await p.client.workflow.execute(grpoStep, {
    taskQueue: p.queues.control,
    workflowId,
    args: [grpoStepInput(config, { pool, sampler: { epoch: 0, cursor: 0 } }, 1)],
  });

  assert.equal(result.cancelledGroups, 1);
  assert.equal(result.groupsUsed, 2);
  assert.ok(Date.now() - started < SLOW_MS * 4, 'the step did not wait for the straggler');
  const batch = await readTrainingBatch(result.batchUri);
  assert.deepEqual([...new Set(batch.episodes.map((e) => e.groupId))], ['g0', 'g1']);
  const rows = await p.rows(workflowId);
  assert.ok(!rows.some((r) => r.task_id === 'slow'), 'the cancelled straggler left no scored row');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_EDGES } from '../../stats/bins.js';
import { fixedTrialsPlanner } from '../../workflows/evaluation.js';
import { probePlanner } from '../../workflows/probe.js';
import { drawTasks } from '../../workflows/sampling.js';
import type { SweepPlanner } from '../../workflows/sweep.js';

const pool = ['a', 'b', 'c', 'd', 'e'];
const info = (taskId: string) => ({ taskId, domain: 'retail', split: 'train' as const, tags: [] });

test('task sampling is seeded and without replacement within an epoch, continuing across calls', () => {
  const first = drawTasks(pool, 3, { epoch: 0, cursor: 0 }, 3);
  const second = drawTasks(pool, 3, first.sampler, 4);
  assert.deepEqual(drawTasks(pool, 3, { epoch: 0, cursor: 0 }, 3), first, 'same seed and state, same draw');
  const epoch0 = [...first.tasks, ...second.tasks.slice(0, 2)];
  assert.deepEqual([...epoch0].sort(), pool, 'the first epoch uses every task exactly once');
  assert.deepEqual(second.sampler, { epoch: 1, cursor: 2 });
  assert.equal(new Set(second.tasks.slice(2)).size, 2);
  const other = drawTasks(pool, 4, { epoch: 0, cursor: 0 }, 5).tasks;
  assert.notDeepEqual(other, drawTasks(pool, 3, { epoch: 0, cursor: 0 }, 5).tasks, 'another seed, another order');
  assert.deepEqual(drawTasks([...pool].reverse(), 3, { epoch: 0, cursor: 0 }, 3).tasks, first.tasks, 'independent of the pool order');
});

/** Drive a planner with `window` episodes in flight, answering each with the task's outcome. */
function drive(planner: SweepPlanner, window: number, outcome: (taskId: string, trial: number) => 'success' | 'failure' | 'infra' | 'malformed') {
  const launched: Array<{ taskId: string; trial: number }> = [];
  const inFlight: Array<{ taskId: string; trial: number }> = [];
  for (;;) {
    while (inFlight.length < window) {
      const next = planner.next();
      if (!next) break;
      const job = { taskId: next.task.taskId, trial: next.trial };
      launched.push(job);
      inFlight.push(job);
    }
    const done = inFlight.shift();
    if (!done) return launched;
    planner.record(done.taskId, outcome(done.taskId, done.trial));
  }
}

test('fixed probing runs n episodes per task; evaluation runs k trials per task, trial by trial', () => {
  const fixed = drive(probePlanner(['x', 'y'].map(info), { n: 3, nMax: 9, adaptive: false, threshold: 0.9, edges: [...DEFAULT_EDGES] }), 4, () => 'success');
  assert.deepEqual(fixed.map((j) => `${j.taskId}${j.trial}`).sort(), ['x0', 'x1', 'x2', 'y0', 'y1', 'y2']);
  const evaluation = drive(fixedTrialsPlanner(['x', 'y'].map(info), 2), 3, () => 'failure');
  assert.deepEqual(evaluation.map((j) => `${j.taskId}${j.trial}`), ['x0', 'y0', 'x1', 'y1']);
});

test('adaptive probing stops a task once one bin is confident, runs an ambiguous one to nMax, and drops a malformed one', () => {
  const planner = probePlanner(['always', 'coin', 'broken'].map(info), { n: 4, nMax: 20, adaptive: true, threshold: 0.9, edges: [...DEFAULT_EDGES] });
  const launched = drive(planner, 8, (taskId, trial) => (taskId === 'always' ? 'success' : taskId === 'broken' ? 'malformed' : trial % 2 === 0 ? 'success' : 'failure'));
  const count = (id: string) => launched.filter((j) => j.taskId === id).length;
  const always = planner.probes.find((p) => p.task.taskId === 'always')!;
  assert.ok(count('always') >= 4 && count('always') < 20, `always-solved task stopped after ${count('always')}`);
  assert.ok(always.stoppedEarly);
  assert.equal(count('coin'), 20, 'a 50% task never becomes confident within 20 episodes for these bins');
  assert.ok(count('broken') <= 4, 'a malformed task is closed after its first answers');
  assert.equal(planner.next(), undefined);
});

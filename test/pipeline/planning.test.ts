import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PolicyClientConfig } from '../../schemas/clients.js';
import { DEFAULT_EDGES } from '../../stats/bins.js';
import { fixedTrialsPlanner } from '../../workflows/evaluation.js';
import { oldestUsableVersion, oldestVersionOf, rolloutsMayStart, versionNumber } from '../../core/policy-versions.js';
import { CampaignConfig } from '../../schemas/campaign.js';
import type { EpisodeOutcome } from '../../schemas/episode.js';
import { fateOf, isStale } from '../../workflows/groups.js';
import { asyncStepInput, policyAt } from '../../workflows/inputs.js';
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
  assert.deepEqual(
    drawTasks([...pool].reverse(), 3, { epoch: 0, cursor: 0 }, 3).tasks,
    first.tasks,
    'independent of the pool order',
  );
});

/** Drive a planner with `window` episodes in flight, answering each with the task's outcome. */
function drive(
  planner: SweepPlanner,
  window: number,
  outcome: (taskId: string, trial: number) => 'success' | 'failure' | 'infra' | 'malformed',
) {
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
  const fixed = drive(
    probePlanner(['x', 'y'].map(info), { n: 3, nMax: 9, adaptive: false, threshold: 0.9, edges: [...DEFAULT_EDGES] }),
    4,
    () => 'success',
  );
  assert.deepEqual(fixed.map((j) => `${j.taskId}${j.trial}`).sort(), ['x0', 'x1', 'x2', 'y0', 'y1', 'y2']);
  const evaluation = drive(fixedTrialsPlanner(['x', 'y'].map(info), 2), 3, () => 'failure');
  assert.deepEqual(
    evaluation.map((j) => `${j.taskId}${j.trial}`),
    ['x0', 'y0', 'x1', 'y1'],
  );
});

test('adaptive probing stops a task once one bin is confident, runs an ambiguous one to nMax, and drops a malformed one', () => {
  const planner = probePlanner(['always', 'coin', 'broken'].map(info), {
    n: 4,
    nMax: 20,
    adaptive: true,
    threshold: 0.9,
    edges: [...DEFAULT_EDGES],
  });
  const launched = drive(planner, 8, (taskId, trial) =>
    taskId === 'always' ? 'success' : taskId === 'broken' ? 'malformed' : trial % 2 === 0 ? 'success' : 'failure',
  );
  const count = (id: string) => launched.filter((j) => j.taskId === id).length;
  const always = planner.probes.find((p) => p.task.taskId === 'always')!;
  assert.ok(count('always') >= 4 && count('always') < 20, `always-solved task stopped after ${count('always')}`);
  assert.ok(always.stoppedEarly);
  assert.equal(count('coin'), 20, 'a 50% task never becomes confident within 20 episodes for these bins');
  assert.ok(count('broken') <= 4, 'a malformed task is closed after its first answers');
  assert.equal(planner.next(), undefined);
});

test('progress counts what is finished: probed tasks once resolved (not the growing episode total), evaluation episodes of tasks x k', () => {
  const tasks = ['sure', 'ambiguous'].map(info);
  const planner = probePlanner(tasks, { n: 2, nMax: 6, adaptive: true, threshold: 0.9, edges: [...DEFAULT_EDGES] });
  assert.deepEqual(planner.finished(), { unit: 'tasks', finished: 0, total: 2 });
  // Both tasks' first n episodes: 'sure' always fails (resolved after n), 'ambiguous' alternates (runs on to nMax).
  const results = new Map<string, number>();
  const answer = (taskId: string) => {
    const i = results.get(taskId) ?? 0;
    results.set(taskId, i + 1);
    return taskId === 'sure' ? 'failure' : i % 2 === 0 ? 'success' : 'failure';
  };
  const seen: Array<{ finished: number; episodes: number }> = [];
  let episodes = 0;
  for (let next = planner.next(); next; next = planner.next()) {
    planner.record(next.task.taskId, answer(next.task.taskId));
    episodes += 1;
    seen.push({ finished: planner.finished().finished, episodes });
  }
  assert.deepEqual(planner.finished(), { unit: 'tasks', finished: 2, total: 2 });
  assert.ok(
    seen.some((s) => s.finished === 1),
    `one task resolved before the other: ${JSON.stringify(seen)}`,
  );
  assert.ok(
    seen.filter((s) => s.finished < 2).length >= 4,
    'the bar is not full while the ambiguous task is still probed',
  );

  const evaluation = fixedTrialsPlanner(tasks, 3, 2);
  assert.deepEqual(
    evaluation.finished(),
    { unit: 'episodes', finished: 2, total: 6 },
    'a continued run counts the episodes of earlier runs',
  );
  const picked = evaluation.next()!;
  evaluation.record(picked.task.taskId, 'success');
  assert.deepEqual(evaluation.finished(), { unit: 'episodes', finished: 3, total: 6 });
});

test('the progress line shows finished of total and the time left at the rate so far', async () => {
  const { childProgressText, timeLeft } = await import('../../cli/progress.js');
  assert.equal(timeLeft(0, 10, 1_000, 61_000), 'estimating time left');
  assert.equal(timeLeft(5, 10, 0, 60_000), 'about 1 min 00 s left');
  assert.equal(timeLeft(1, 4, 0, 10_000), 'about 30 s left');
  assert.equal(timeLeft(4, 4, 0, 10_000), 'finishing');
  const now = 100_000;
  const line = childProgressText(
    {
      kind: 'probe',
      planned: 2306,
      done: 2274,
      inFlight: 32,
      infraFailed: 0,
      unit: 'tasks',
      finished: 150,
      total: 200,
      startedAt: now - 300_000,
    },
    now,
  );
  assert.equal(
    line,
    '[##################......] 150/200 tasks resolved, 2274 episodes done, 32 in flight · about 1 min 40 s left',
  );
  assert.match(
    childProgressText(
      {
        kind: 'grpoStep',
        planned: 32,
        done: 8,
        inFlight: 24,
        infraFailed: 1,
        unit: 'groups',
        finished: 1,
        total: 4,
        startedAt: now - 20_000,
      },
      now,
    ),
    /^\[######\.+\] 1\/4 groups ready, 8 episodes done, 24 in flight, 1 lost to infrastructure .* · about 1 min 00 s left$/,
  );
});

test('the served policy at a version names the checkpoint it was published from (its fingerprint lies beside it)', () => {
  const served = { kind: 'served' as const, client: PolicyClientConfig.parse({ baseUrl: 'http://v', model: 'm' }) };
  assert.deepEqual(policyAt(served, { policyVersion: '2', checkpointUri: 'file:///c/step-000002/' }), {
    ...served,
    version: '2',
    checkpointUri: 'file:///c/step-000002/',
  });
  assert.deepEqual(policyAt(served, {}), served, 'the base policy: no version, no checkpoint');
  assert.deepEqual(policyAt({ kind: 'oracle' }, { policyVersion: '2', checkpointUri: 'file:///c' }), {
    kind: 'oracle',
  });
});

test('asynchronous steps: the window of step u is [u - 1 - K, u - 1]; episodes accept it; older groups are stale', () => {
  assert.equal(oldestUsableVersion(5, 0), 4, 'K = 0: only the version the update starts from');
  assert.equal(oldestUsableVersion(5, 1), 3);
  assert.equal(oldestUsableVersion(2, 3), 0, 'never below the base policy');
  assert.ok(!rolloutsMayStart(4, 1, 1), 'step 4 (K = 1) may sample version 2, which is not published yet');
  assert.ok(rolloutsMayStart(4, 1, 2));
  assert.equal(versionNumber('7'), 7);
  assert.equal(versionNumber('default'), 0, "vLLM's startup weights are the base policy");
  assert.equal(versionNumber(undefined), 0);
  assert.equal(oldestVersionOf('3,2,4'), 2);
  assert.equal(oldestVersionOf(undefined), undefined);

  const config = {
    ...CampaignConfig.parse({
      campaignId: 'c',
      policy: { kind: 'served', client: { baseUrl: 'http://127.0.0.1:1', model: 'm' } },
      tasks: { train: { taskSet: 't', split: 'train' }, eval: { taskSet: 't', split: 'eval' } },
      steps: 5,
      async: { maxStaleness: 1 },
      update: { baseModel: '/m' },
    }),
    taskQueues: { control: 'c', episodes: 'e', gpu: 'g' },
  };
  const state = { pool: ['a'], sampler: { epoch: 0, cursor: 0 }, policyVersion: '1', checkpointUri: 'file:///c/1' };
  const step3 = asyncStepInput(config, state, 3, { sampler: { epoch: 0, cursor: 4 }, awaitPrevious: true });
  assert.deepEqual(step3.async, { maxStaleness: 1, minVersion: 1, publishedVersion: 1, awaitPrevious: true });
  assert.deepEqual(step3.sampler, { epoch: 0, cursor: 4 }, "it draws on from the previous step's draws");
  assert.ok(step3.settings.policy.kind === 'served');
  assert.equal(step3.settings.policy.version, '2', 'the newest version it may meet');
  assert.equal(step3.settings.policy.minVersion, '1');
  const step1 = asyncStepInput(config, { ...state, policyVersion: undefined }, 1, {
    sampler: state.sampler,
    awaitPrevious: false,
  });
  assert.ok(step1.settings.policy.kind === 'served' && step1.settings.policy.version === undefined, 'the base');

  const outcome = (policyVersion: string) => ({ policyVersion }) as EpisodeOutcome;
  assert.ok(!isStale([outcome('1'), outcome('1,2')], 1));
  assert.ok(isStale([outcome('1'), outcome('0,2')], 1), 'one turn of version 0 in a group of step 3 (K = 1)');
  assert.ok(!isStale([outcome('0')], undefined), 'the synchronous step has no window');
});

test('update.loss.passAtK: refused above rolloutsPerGroup or with a truncation penalty; carried into the step; a group informative with k failures', () => {
  const campaign = (passAtK: number, truncationPenalty = 0) =>
    CampaignConfig.safeParse({
      campaignId: 'c',
      policy: { kind: 'served', client: { baseUrl: 'http://127.0.0.1:1', model: 'm' } },
      tasks: { train: { taskSet: 't', split: 'train' }, eval: { taskSet: 't', split: 'eval' } },
      steps: 5,
      rolloutsPerGroup: 8,
      update: { baseModel: '/m', loss: { passAtK }, truncationPenalty },
    });
  const refused = campaign(9);
  assert.ok(!refused.success);
  assert.deepEqual(refused.error.issues[0]!.path, ['update', 'loss', 'passAtK']);
  assert.match(refused.error.issues[0]!.message, /passAtK is 9, above rolloutsPerGroup 8/);
  const penalised = campaign(4, 0.2);
  assert.ok(!penalised.success);
  assert.match(penalised.error.issues[0]!.message, /the pass@k advantage needs 0\/1 training rewards/);
  const accepted = campaign(4);
  assert.ok(accepted.success);
  const config = { ...accepted.data, taskQueues: { control: 'c', episodes: 'e', gpu: 'g' } };
  const state = { pool: ['a'], sampler: { epoch: 0, cursor: 0 }, policyVersion: '1', checkpointUri: 'file:///c/1' };
  const step = asyncStepInput(config, state, 2, { sampler: { epoch: 0, cursor: 0 }, awaitPrevious: false });
  assert.equal(step.update.loss.passAtK, 4);
  assert.equal(
    CampaignConfig.parse({ ...config, update: { baseModel: '/m' } }).update.loss.passAtK,
    null,
    'GRPO by default',
  );

  const group = (passes: number) =>
    Array.from({ length: 8 }, (_, i) => ({
      kind: 'outcome' as const,
      outcome: { reward: i < passes ? 1 : 0 } as EpisodeOutcome,
    }));
  const informative = (passes: number, k: number | null) => {
    const fate = fateOf(0, 't', group(passes), k);
    return fate.kind === 'scored' && fate.scored.informative;
  };
  assert.deepEqual(
    [0, 1, 4, 5, 7, 8].map((p) => informative(p, null)),
    [false, true, true, true, true, false],
  );
  assert.deepEqual(
    [0, 1, 4, 5, 7, 8].map((p) => informative(p, 4)),
    [false, true, true, false, false, false],
  );
});

test("update.loss.klReference 'base' refused with klCoef 0, unlikeliness with passAtK; both carried into the step's payload", () => {
  const campaign = (loss: Record<string, unknown>) =>
    CampaignConfig.safeParse({
      campaignId: 'c',
      policy: { kind: 'served', client: { baseUrl: 'http://127.0.0.1:1', model: 'm' } },
      tasks: { train: { taskSet: 't', split: 'train' }, eval: { taskSet: 't', split: 'eval' } },
      steps: 5,
      update: { baseModel: '/m', loss },
    });
  const refused = campaign({ klReference: 'base' });
  assert.ok(!refused.success);
  assert.deepEqual(refused.error.issues[0]!.path, ['update', 'loss', 'klReference']);
  assert.match(refused.error.issues[0]!.message, /klReference is 'base' with klCoef 0/);
  const held = campaign({ klReference: 'base', klCoef: 0.05 });
  assert.ok(held.success);
  const config = { ...held.data, taskQueues: { control: 'c', episodes: 'e', gpu: 'g' } };
  const state = { pool: ['a'], sampler: { epoch: 0, cursor: 0 }, policyVersion: '1', checkpointUri: 'file:///c/1' };
  const step = asyncStepInput(config, state, 2, { sampler: { epoch: 0, cursor: 0 }, awaitPrevious: false });
  assert.deepEqual([step.update.loss.klReference, step.update.loss.klCoef], ['base', 0.05]);
  assert.ok(campaign({}).success && campaign({}).data!.update.loss.klReference === 'ratio', 'the default: as before');
  const both = campaign({ unlikeliness: 0.25, passAtK: 2 });
  assert.ok(!both.success);
  assert.deepEqual(both.error.issues[0]!.path, ['update', 'loss', 'unlikeliness']);
  assert.match(both.error.issues[0]!.message, /unlikeliness is 0\.25 with update\.loss\.passAtK 2/);
  assert.equal(campaign({ unlikeliness: 1.5 }).success, false, 'a weight above 1 would turn a pass into a failure');
  const unlikely = campaign({ unlikeliness: 0.25 });
  assert.ok(unlikely.success);
  const payload = asyncStepInput(
    { ...unlikely.data, taskQueues: { control: 'c', episodes: 'e', gpu: 'g' } },
    state,
    2,
    { sampler: { epoch: 0, cursor: 0 }, awaitPrevious: false },
  );
  assert.equal(payload.update.loss.unlikeliness, 0.25, "the unlikeliness reward's weight reaches the update");
});

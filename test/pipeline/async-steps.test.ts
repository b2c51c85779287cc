import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { oldestVersionOf } from '../../core/policy-versions.js';
import type { CampaignStatus } from '../../schemas/campaign.js';
import type { GrpoStepResult } from '../../schemas/pipeline.js';
import { replayStepUpdate, statusQuery, stopAfterStepSignal } from '../../workflows/definitions.js';
import { startPipeline, task, type Pipeline } from '../../testkit/pipeline/harness.js';

// Asynchronous steps (campaign.async.maxStaleness K >= 1) on the real Temporal dev server and PostgreSQL, with the
// seeded random stand-in runner and the stand-in gpu worker. Each turn records the version the (fake) policy server
// serves at that moment, as the real client records what the server reports, so a publish between two turns shows.
// Overlap is keyed on events: the stand-in update of step n is held until an episode of step n+1 has started.
const tasks = [
  task('a-1', 0.5),
  task('a-2', 0.5),
  task('a-3', 0.6),
  task('a-4', 0.4),
  task('e-1', 0.5, 'eval'),
  task('e-2', 0.5, 'eval'),
];
const turnVersions = new Map<string, string>();
let p: Pipeline;

before(async () => {
  p = await startPipeline(tasks, { turnVersions, seed: 3 }, 8, { turnsFollowServedVersion: true });
});
after(async () => {
  await p?.close();
});

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const episodeOfStepStarted = (campaignId: string, step: number) =>
  [...p.runner.attempts.keys()].some((id) => id.startsWith(`${campaignId}/step-${step}/`));

test('K = 1: step n+1 collects while step n trains and publishes; every trained turn is inside its window; a stale group is dropped and refilled', async () => {
  const config = p.campaignConfig({
    steps: 3,
    async: { maxStaleness: 1 },
    keepZeroVarianceGroups: true,
    evaluation: { everySteps: 2, k: 2, window: 8 },
    seed: 11,
  });
  const id = config.campaignId;
  // Step 3's window is [1, 2]: a turn recorded as the base policy's (0) makes its group stale.
  turnVersions.set(`${id}/step-3/g0-t1`, '0');
  const evaluatedBeforeUpdate = new Map<number, boolean>();
  p.gpu.hooks.beforeUpdate = async (input) => {
    if (input.campaignId !== id) return;
    if (input.step < config.steps)
      await until(`an episode of step ${input.step + 1}`, () => episodeOfStepStarted(id, input.step + 1));
    if (input.step === 3)
      evaluatedBeforeUpdate.set(
        3,
        (await p.client.workflow.getHandle(`${id}/eval-step-2`).describe()).status.name === 'COMPLETED',
      );
  };
  try {
    const handle = await p.startCampaign(config);
    const { state } = await handle.result();
    assert.equal(state.phase, 'done');
    assert.deepEqual(
      state.steps.map((s) => s.step),
      [1, 2, 3],
    );
    assert.deepEqual(
      state.evalPoints.map((e) => e.step),
      [0, 2, 3],
    );
    assert.equal(evaluatedBeforeUpdate.get(3), true, "step 3 trains only after step 2's evaluation");

    // Overlap: each later step's child started before the earlier one closed.
    const described = await Promise.all(
      [1, 2, 3].map((s) => p.client.workflow.getHandle(`${id}/step-${s}`).describe()),
    );
    for (const s of [0, 1])
      assert.ok(
        described[s + 1]!.startTime < described[s]!.closeTime!,
        `step ${s + 2} started before step ${s + 1} closed`,
      );

    // Every turn of every trained episode was sampled inside its update's window [u - 2, u - 1].
    const rows = new Map<string, { policyVersion?: string }>();
    for (const step of [1, 2, 3])
      for (const r of await p.rows(`${id}/step-${step}`)) rows.set(r.episode_id, JSON.parse(JSON.stringify(r)));
    const versionsSeen = new Map<number, Set<string>>();
    for (const { input, batch } of p.gpu.calls.filter((c) => c.input.campaignId === id)) {
      const u = input.step;
      for (const e of batch.episodes) {
        const row = (
          await p.pool.query<{ row: { policyVersion?: string } }>(
            'SELECT row FROM campaign_result_rows WHERE result_set = $1 AND episode_id = $2',
            [`${id}/step-${u}`, e.episodeId],
          )
        ).rows[0];
        assert.ok(row, `episode ${e.episodeId} has a result row`);
        const oldest = oldestVersionOf(row.row.policyVersion)!;
        assert.ok(oldest >= Math.max(0, u - 2), `${e.episodeId}: turn of version ${oldest} in the update of ${u}`);
        for (const v of row.row.policyVersion!.split(',')) assert.ok(Number(v) <= u - 1, `${e.episodeId}: ${v}`);
        versionsSeen.set(u, new Set([...(versionsSeen.get(u) ?? []), ...row.row.policyVersion!.split(',')]));
      }
    }
    console.log(
      'versions of the trained turns per update:',
      JSON.stringify(Object.fromEntries([...versionsSeen].map(([u, v]) => [u, [...v].sort()]))),
    );
    assert.ok(versionsSeen.get(2)!.has('0'), 'step 2 trained on turns of the base policy: rollouts ran during step 1');

    // The stale group of step 3: dropped, refilled, counted by its task.
    const step3 = (await p.client.workflow.getHandle(`${id}/step-3`).result()) as GrpoStepResult;
    assert.equal(step3.staleGroups, 1);
    const staleTask = (await p.rows(`${id}/step-3`)).find((r) => r.episode_id === `${id}/step-3/g0-t1`)!.task_id;
    assert.deepEqual(step3.staleByTask, { [staleTask]: 1 });
    assert.equal(step3.groupsUsed, config.groupsPerStep, 'the stale group was refilled');
    assert.equal(state.steps[2]!.staleGroups, 1);
    assert.equal(state.steps[0]!.maxStaleness, 1);
    assert.ok(state.steps[1]!.wallSeconds!.waitForPrevious !== undefined);
  } finally {
    p.gpu.hooks.beforeUpdate = undefined;
  }
});

test('K = 1: a failed step cancels the step started after it and waits for replay-step; a stop ends after the newest step started', async () => {
  const config = p.campaignConfig({ steps: 3, async: { maxStaleness: 1 }, keepZeroVarianceGroups: true, seed: 12 });
  const id = config.campaignId;
  let failed = false;
  p.gpu.hooks.beforeUpdate = async (input) => {
    if (input.campaignId !== id || input.step !== 1 || failed) return;
    await until('an episode of step 2', () => episodeOfStepStarted(id, 2));
    failed = true;
    throw ApplicationFailure.nonRetryable('the stand-in update of step 1 fails once', 'StandInFailure');
  };
  try {
    const handle = await p.startCampaign(config);
    await until('step 1 to fail', async () => (await handle.query(statusQuery)).phase === 'step-failed');
    const status: CampaignStatus = await handle.query(statusQuery);
    assert.equal(status.failedStep?.step, 1);
    assert.equal(status.currentChild, null, 'nothing runs while the campaign waits for replay-step');
    assert.equal(
      (await p.client.workflow.getHandle(`${id}/step-2`).describe()).status.name,
      'CANCELLED',
      'the step started on rollouts around the failed step was cancelled',
    );
    const attemptsBefore = new Map(p.runner.attempts);
    await handle.executeUpdate(replayStepUpdate, { args: [1] });
    // Stop after the newest step started: once step 2 runs again (after the replayed step 1 collected), the stop
    // names step 2, which finishes; step 3 never starts.
    await until('step 2 to run again', () =>
      [...p.runner.attempts].some(([e, n]) => e.startsWith(`${id}/step-2/`) && n > (attemptsBefore.get(e) ?? 0)),
    );
    await handle.signal(stopAfterStepSignal);
    const { state } = await handle.result();
    assert.equal(state.replays, 1);
    assert.equal((await p.client.workflow.getHandle(`${id}/step-1-replay-1`).describe()).status.name, 'COMPLETED');
    assert.equal(state.phase, 'stopped');
    assert.equal(state.step, 2, 'the stop named the newest step started, which finished');
    assert.deepEqual(
      state.steps.map((s) => s.step),
      [1, 2],
    );
    assert.ok(!episodeOfStepStarted(id, 3), 'step 3 never started');
  } finally {
    p.gpu.hooks.beforeUpdate = undefined;
  }
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { localPathOf } from '../../storage/artifacts.js';
import type { CampaignStatus } from '../../schemas/campaign.js';
import { servedFingerprintUri, ServedFingerprints } from '../../schemas/policy-api.js';
import { FrozenPool } from '../../schemas/results.js';
import { campaign } from '../../workflows/campaign/index.js';
import { pauseSignal, resumeSignal, setMaxStepsUpdate, statusQuery } from '../../workflows/definitions.js';
import { drawTasks } from '../../workflows/sampling.js';
import { StepKey } from '../../workflows/search-attributes.js';
import type { CampaignCost } from '../../cli/campaign-cost.js';
import { runCliAsync } from './cli.js';
import { startPipeline, task, type Pipeline } from '../../testkit/pipeline/harness.js';
import { lockVllm, suiteVllm, type VllmTarget } from '../helpers/vllm.js';

// Episodes come from SeededRandomEpisodeRunner (test/pipeline/seeded-random-runner.ts), a seeded random stand-in for
// the agent loop; policy updates from the stand-in gpu worker. Temporal and PostgreSQL are the real shared stack.
const tasks = [
  task('t-easy', 0.7),
  task('t-mid-a', 0.5),
  task('t-mid-b', 0.4),
  task('t-mid-c', 0.6),
  task('t-always', 1),
  task('t-never', 0),
  task('e-1', 0.5, 'eval'),
  task('e-2', 0.3, 'eval'),
  task('e-3', 0.8, 'eval'),
];
let p: Pipeline;
const outages = new Map<string, number>();

// The main campaign publishes to real vLLM (the suite's CPU build) beside the project server's admin surface.
let vllm: VllmTarget & { close(): Promise<void> };
let releaseVllm: () => Promise<void>;

before(async () => {
  vllm = await suiteVllm();
  releaseVllm = (await lockVllm(vllm)).release;
  p = await startPipeline(tasks, { outages }, 8, { checkpointWeights: vllm.weightsDir });
});
after(async () => {
  await p?.close();
  await releaseVllm?.();
  await vllm?.close();
});

async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('a mini campaign runs probe, select, base evaluation, 3 GRPO steps with continueAsNew after each, and a final evaluation', async () => {
  // episodesPerChildRun 5: the probe and the evaluations also renew their histories (continueAsNew) as they go.
  const config = p.campaignConfig({
    steps: 3,
    continueAsNewEverySteps: 1,
    episodesPerChildRun: 5,
    seed: 7,
    update: { baseModel: vllm.weightsDir },
    policyServers: [
      { url: vllm.url, kind: 'vllm' },
      { url: p.policyServer.url, kind: 'finalstate' },
    ],
  });
  const id = config.campaignId;
  const handle = await p.startCampaign(config);
  const phases = new Set<string>();
  const watcher = (async () => {
    for (;;) {
      try {
        const s = await handle.query(statusQuery);
        phases.add(s.phase);
        if (s.phase === 'done') return;
      } catch {
        // between runs (continueAsNew) a query can miss
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const { state } = await handle.result();
  await watcher;

  assert.equal(state.phase, 'done');
  assert.equal(state.step, 3);
  assert.equal(state.runs, 3, 'two continueAsNew (after steps 1 and 2), none after the last');
  assert.deepEqual(
    state.steps.map((s) => s.step),
    [1, 2, 3],
    'step summaries carried across runs',
  );
  assert.deepEqual(
    state.evalPoints.map((e) => e.step),
    [0, 3],
    'base evaluation, then the final one',
  );
  assert.ok(phases.has('train') || phases.has('base-eval'), `status query saw the phases: ${[...phases].join(',')}`);

  // logMetrics (gpu queue) got each step's summary and each evaluation's headlines, once each, across runs.
  const logged = p.gpu.logged.filter((l) => l.campaignId === id);
  const trainLogs = logged.filter((l) => 'train/mean_reward' in l.scalars);
  assert.deepEqual(
    trainLogs.map((l) => l.step),
    [1, 2, 3],
  );
  for (const [i, s] of state.steps.entries()) {
    const scalars = trainLogs[i]!.scalars;
    assert.equal(scalars['train/mean_reward'], s.meanReward);
    assert.equal(scalars['train/informative_fraction'], s.informativeFraction);
    assert.equal(scalars['train/loss'], s.loss);
    assert.equal(scalars['train/refills'], s.refills);
    assert.equal(scalars['time/step_s'], s.wallSeconds!.total);
    assert.ok(
      s.wallSeconds!.total >= s.wallSeconds!.rollouts,
      `step ${s.step} wall times ${JSON.stringify(s.wallSeconds)}`,
    );
  }
  const evalLogs = logged.filter((l) => 'eval/pass@1' in l.scalars);
  assert.deepEqual(
    evalLogs.map((l) => [l.step, l.scalars['eval/pass@1']]),
    state.evalPoints.map((e) => [e.step, e.pass1]),
  );
  assert.ok(
    evalLogs.every((l) => typeof l.scalars['eval/retail/pass@1'] === 'number'),
    'per-domain pass@1',
  );

  // Select froze a pool without the tasks every probe episode passed or failed.
  const pool = FrozenPool.parse(JSON.parse(fs.readFileSync(localPathOf(state.poolUri!), 'utf8')));
  assert.deepEqual(state.pool, pool.pool);
  assert.ok(!pool.pool.includes('t-always') && !pool.pool.includes('t-never'), `pool ${pool.pool.join(',')}`);
  assert.equal(pool.records.length, 6);

  // Every step drew its groups from the sampler state the previous run carried over (continueAsNew kept it).
  let sampler = { epoch: 0, cursor: 0 };
  for (const step of [1, 2, 3]) {
    const rows = await p.rows(`${id}/step-${step}`);
    const firstGroups = [
      ...new Set(rows.filter((r) => /\/g[01]-t\d+$/.test(r.episode_id)).map((r) => r.task_id)),
    ].sort();
    const drawn = drawTasks(state.pool!, config.seed, sampler, 2);
    assert.deepEqual(firstGroups, [...new Set(drawn.tasks)].sort(), `step ${step} groups 0 and 1`);
    const summary = (await p.client.workflow.getHandle(`${id}/step-${step}`).result()) as { sampler: typeof sampler };
    sampler = summary.sampler;
  }
  assert.deepEqual(state.sampler, sampler);

  // Rows of every phase are in the control database; probe rows came from adaptive probing.
  const probeRows = await p.rows(`${id}/probe`);
  assert.ok(probeRows.length >= 6 * 4 && probeRows.length <= 6 * 8, `${probeRows.length} probe rows`);
  assert.equal((await p.rows(`${id}/eval-step-0`)).length, 3 * 2);
  for (const child of ['probe', 'eval-step-0']) {
    const history = await p.client.workflow.getHandle(`${id}/${child}`).fetchHistory();
    assert.ok(
      history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId,
      `${child}'s last run continued an earlier one`,
    );
  }
  const probeResult = (await p.client.workflow.getHandle(`${id}/probe`).result()) as {
    episodes: { done: number };
    tasks: number;
  };
  assert.equal(probeResult.episodes.done, probeRows.length, "counts carried across the probe's runs");
  assert.equal(probeResult.tasks, 6);
  assert.equal((await p.rows(`${id}/eval-step-3`)).length, 3 * 2);
  assert.equal(
    state.episodes.done,
    probeRows.length +
      12 +
      (await p.rows(`${id}/step-1`)).length +
      (await p.rows(`${id}/step-2`)).length +
      (await p.rows(`${id}/step-3`)).length,
  );

  // The gpu stand-in trained once per step on the batch buildBatch wrote; the policy server reports the last version.
  const updates = p.gpu.calls.filter((c) => c.input.campaignId === id);
  assert.deepEqual(
    updates.map((c) => c.input.step),
    [1, 2, 3],
  );
  for (const c of updates)
    assert.ok(
      c.batch.episodes.length >= 2 &&
        c.batch.episodes.every((e) => e.episodeId.startsWith(`${id}/step-${c.input.step}/`)),
    );
  assert.equal(p.policyServer.version(), 3);
  // Each step published through the admin routes, paused and resumed again, with the version the workflow chose.
  assert.deepEqual(p.policyServer.reloads.map((r) => r.version).slice(-3), [1, 2, 3]);
  assert.deepEqual(p.policyServer.calls.slice(-4), ['/pause', '/collective_rpc', '/reset_prefix_cache', '/resume']);
  assert.equal(p.policyServer.paused(), false);
  const vllmReports = async (route: string) => (await fetch(`${vllm.url}${route}`)).json();
  assert.deepEqual(await vllmReports('/weight_info'), { weight_version: '3' }, 'vLLM loaded each step as its version');
  assert.deepEqual(await vllmReports('/is_paused'), { is_paused: false });
  assert.equal(state.policyVersion, '3');
  assert.ok(state.checkpointUri?.endsWith('step-000003'));
  const fingerprints = ServedFingerprints.parse(
    JSON.parse(fs.readFileSync(localPathOf(servedFingerprintUri(state.checkpointUri!)), 'utf8')),
  );
  assert.deepEqual(
    [fingerprints.policyVersion, fingerprints.servers.map((s) => s.url)],
    ['3', [vllm.url]],
    "vLLM's fingerprint of version 3 lies beside its checkpoint, for clients without /weight_info",
  );

  // Search attributes: the campaign and its children are found by CampaignId; the campaign's Step is 3.
  const found = await waitFor(
    'visibility',
    async () => {
      const ids: string[] = [];
      for await (const w of p.client.workflow.list({ query: `CampaignId = "${id}"` })) ids.push(w.workflowId);
      return ids;
    },
    (ids) => ids.includes(`${id}/step-3`) && ids.includes(id),
  );
  assert.ok(found.includes(`${id}/probe`));
  const described = await handle.describe();
  assert.equal(described.typedSearchAttributes.get(StepKey), 3);
});

test('pause holds the campaign before its next phase; status, setMaxSteps (validated) and resume behave as documented', async () => {
  const config = p.campaignConfig({ steps: 50, seed: 3 });
  const id = config.campaignId;
  // Started with the pause signal in the same request: it is handled before the probe could start.
  const handle = await p.client.workflow.signalWithStart(campaign, {
    taskQueue: p.queues.control,
    workflowId: id,
    args: [{ config }],
    signal: pauseSignal,
    signalArgs: [],
  });
  const paused = await waitFor(
    'the pause to hold',
    () => handle.query(statusQuery),
    (s: CampaignStatus) => s.paused && s.currentChild === null,
  );
  assert.equal(paused.phase, 'probe');
  assert.equal(paused.maxSteps, 50);
  assert.equal(paused.poolSize, null);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const still = await handle.query(statusQuery);
  assert.equal(still.phase, 'probe', 'nothing started while paused');
  assert.equal(still.currentChild, null);
  assert.equal(still.episodes.done, 0);

  const cli = await runCliAsync(['campaign', 'status', id, '--json']);
  assert.equal(cli.status, 0, cli.stderr);
  const printed = JSON.parse(cli.stdout) as Record<string, unknown>;
  for (const key of ['phase', 'step', 'maxSteps', 'poolSize', 'episodes', 'lastMetrics'])
    assert.ok(key in printed, `status --json has ${key}`);
  assert.deepEqual(printed.episodes, still.episodes);

  await assert.rejects(handle.executeUpdate(setMaxStepsUpdate, { args: [0] }), (err: Error) =>
    /not a positive integer/.test((err.cause as Error | undefined)?.message ?? ''),
  );
  assert.equal(await handle.executeUpdate(setMaxStepsUpdate, { args: [1] }), 50);
  assert.equal((await handle.query(statusQuery)).maxSteps, 1);

  await handle.signal(resumeSignal);
  await waitFor(
    'training to start after resume',
    () => handle.query(statusQuery),
    (s: CampaignStatus) => (s.poolSize ?? 0) > 0,
  );
  const { state } = await handle.result();
  assert.equal(state.phase, 'done');
  assert.equal(state.step, 1);
  assert.deepEqual(
    state.evalPoints.map((e) => e.step),
    [0, 1],
  );
});

test('stopWhenPoolExhausted: a step short of informative groups with none lost to infrastructure ends training', async () => {
  // Pairs of rollouts on tasks of middle difficulty, no replacement round: about half of the 8 groups are
  // zero-variance, so step 1 is short of informative groups, and no episode failed for infrastructure.
  const config = {
    ...p.campaignConfig({ steps: 3, groupsPerStep: 8, rolloutsPerGroup: 2, maxReplacementRounds: 0, seed: 5 }),
    stopWhenPoolExhausted: true,
  };
  const handle = await p.startCampaign(config);
  const { state } = await handle.result();
  assert.equal(state.phase, 'stopped', 'ended without waiting for replay-step');
  assert.equal(state.step, 0);
  assert.equal(state.failedStep?.step, 1);
  assert.match(state.failedStep!.message, /ShortOfInformativeGroups: .* 0 lost to infrastructure failures/);
  assert.deepEqual(
    state.evalPoints.map((e) => e.step),
    [0],
    'no step finished, so the base evaluation is the last',
  );
});

test('CLI: start from a config file, a failed step waits for replay-step, which re-runs it as a new child; then report', async () => {
  // stopWhenPoolExhausted does not apply: the missing group was lost to infrastructure, not to a solved pool.
  const config = { ...p.campaignConfig({ steps: 1, maxReplacementRounds: 0, seed: 21 }), stopWhenPoolExhausted: true };
  const id = config.campaignId;
  // Group 0 of step 1 loses an episode to an outage that outlasts its 3 attempts: with no replacement round left
  // the step is short of informative groups. The outage is over when the step is replayed.
  outages.set(`${id}/step-1/g0-t0`, 3);
  const dir = fs.mkdtempSync(`${p.artifacts.root}-cli-`);
  const file = `${dir}/campaign.json`;
  fs.writeFileSync(file, JSON.stringify({ ...config, steps: 0 }));
  const bad = await runCliAsync(['campaign', 'start', file]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, new RegExp(`campaign config ${file}: invalid\\n  steps: `));

  fs.writeFileSync(file, JSON.stringify(config));
  // The stand-in gpu worker never reads its base model; a real start refuses a directory that is not a model.
  const noModel = await runCliAsync(['campaign', 'start', file]);
  assert.equal(noModel.status, 2);
  assert.match(
    noModel.stderr,
    /base model \/nonexistent\/base-model is not a Hugging Face causal-LM directory the stack can load:\n {2}- \/nonexistent\/base-model is not a directory/,
  );
  const started = await runCliAsync(['campaign', 'start', file, '--json', '--skip-base-model-check']);
  assert.equal(started.status, 0, started.stderr);
  const printed = JSON.parse(started.stdout) as { workflowId: string; url: string; started: boolean };
  assert.equal(printed.workflowId, id);
  assert.ok(printed.started);
  assert.match(printed.url, new RegExp(`/namespaces/default/workflows/${encodeURIComponent(id)}$`));
  const again = await runCliAsync(['campaign', 'start', file, '--skip-base-model-check']);
  assert.match(again.stdout, /already running/);

  const handle = p.client.workflow.getHandle(id);
  const failed = await waitFor(
    'step 1 to fail',
    () => handle.query(statusQuery),
    (s: CampaignStatus) => s.phase === 'step-failed',
  );
  assert.equal(failed.failedStep?.step, 1);
  assert.match(failed.failedStep!.message, /ShortOfInformativeGroups/);
  const text = await runCliAsync(['campaign', 'status', id]);
  assert.match(text.stdout, /step 1 FAILED/);
  const wrong = await runCliAsync(['campaign', 'replay-step', id, '2']);
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /step 1 failed, not step 2/);
  const replay = await runCliAsync(['campaign', 'replay-step', id, '1', '--json']);
  assert.equal(replay.status, 0, replay.stderr);
  assert.equal((JSON.parse(replay.stdout) as { childWorkflowId: string }).childWorkflowId, `${id}/step-1-replay-1`);

  const { state } = (await handle.result()) as { state: { phase: string; step: number; replays: number } };
  assert.equal(state.phase, 'done');
  assert.equal(state.step, 1);
  assert.equal(state.replays, 1);
  assert.equal((await p.client.workflow.getHandle(`${id}/step-1-replay-1`).describe()).status.name, 'COMPLETED');

  const finished = JSON.parse((await runCliAsync(['campaign', 'status', id, '--json'])).stdout) as CampaignStatus & {
    cost: CampaignCost;
  };
  assert.equal(finished.phase, 'done', "a finished campaign's status comes from its result");
  // The stand-in runner's episodes cost 0.001 $ each: the second figure adds the probe's, the rollouts' and the update's.
  const { spent, evaluated } = finished.cost;
  assert.ok(spent.probeUsd > 0 && spent.rolloutsUsd > 0 && spent.computeUsd > 0, JSON.stringify(spent));
  assert.equal(evaluated?.step, 1);
  assert.deepEqual(
    [evaluated!.probeUsd, evaluated!.rolloutsUsd, evaluated!.computeUsd],
    [spent.probeUsd, spent.rolloutsUsd, spent.computeUsd],
    'the last step is the evaluated one',
  );
  if (evaluated!.dependableTasks)
    assert.ok(
      Math.abs(
        evaluated!.withTraining! -
          evaluated!.inferenceOnly! -
          (spent.probeUsd + spent.rolloutsUsd + spent.computeUsd) / evaluated!.dependableTasks,
      ) < 1e-9,
      JSON.stringify(evaluated),
    );
  const done = await runCliAsync(['campaign', 'status', id]);
  assert.match(done.stdout, /per task {2}passed k\/k at step 1 .* with the probe and the training/, done.stderr);
  const unknown = await runCliAsync(['campaign', 'status', `${id}-nope`]);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /no campaign ".*-nope"/);

  const report = await runCliAsync(['report', id, '--out', dir, '--json']);
  assert.equal(report.status, 0, report.stderr);
  const written = JSON.parse(report.stdout) as { html: string; markdown: string };
  const html = fs.readFileSync(written.html, 'utf8');
  assert.match(html, new RegExp(`Campaign ${id}`));
  assert.ok(html.includes('<svg'), 'charts are inline');
  for (const table of ['cost-with-training', 'coverage', 'coverage-tasks'])
    assert.ok(html.includes(`<table id="table-${table}"`), `the report has its ${table} table`);

  fs.rmSync(dir, { recursive: true, force: true });
});

test('CLI: finalstate eval runs a standalone evaluation and prints its metrics', async () => {
  const dir = fs.mkdtempSync(`${p.artifacts.root}-eval-`);
  const file = `${dir}/eval.json`;
  const evaluationId = `ev-${Date.now().toString(36)}`;
  fs.writeFileSync(
    file,
    JSON.stringify({
      evaluationId,
      policy: { kind: 'oracle' },
      tasks: { taskSet: p.taskSet, split: 'eval' },
      k: 3,
      taskQueues: p.queues,
    }),
  );
  const res = await runCliAsync(['eval', file, '--json']);
  assert.equal(res.status, 0, res.stderr);
  const out = JSON.parse(res.stdout) as {
    workflowId: string;
    metrics: { tasks: number; attempts: number; pass1: number };
  };
  assert.equal(out.workflowId, `eval/${evaluationId}`);
  assert.equal(out.metrics.tasks, 3);
  assert.equal(out.metrics.attempts, 9);
  const rows = await p.rows(`eval/${evaluationId}`);
  assert.equal(rows.length, 9);
  assert.equal(
    out.metrics.pass1,
    [0, 1, 2]
      .map((i) => rows.filter((r) => r.task_id === `e-${i + 1}`).reduce((s, r) => s + r.reward, 0) / 3)
      .reduce((a, b) => a + b) / 3,
  );
  await p.pool.query('DELETE FROM campaign_result_rows WHERE result_set = $1', [`eval/${evaluationId}`]);
  fs.rmSync(dir, { recursive: true, force: true });
});

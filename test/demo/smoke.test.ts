import assert from 'node:assert/strict';
import type { UnfinishedVerdict } from '../../stats/unfinished.js';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import pg from 'pg';
import { loadPreset, PRESET_DIR } from '../../cli/demo/preset.js';
import { localPathOf } from '../../storage/artifacts.js';
import { fromRoot } from '../../core/paths.js';
import { loadConfig } from '../../workers/config.js';
import { connectionConfig } from '../../environment/connection.js';
import { connectClient } from '../../workers/temporal-client.js';
import type { CampaignState } from '../../schemas/campaign.js';
import { FrozenPool } from '../../schemas/results.js';
import type { GrpoStepResult } from '../../schemas/pipeline.js';
import { Trajectory } from '../../schemas/trajectory.js';
import { readTrainingBatch } from '../../storage/training-batch.js';
import { oldestUsableVersion, versionNumber } from '../../core/policy-versions.js';
import type { CampaignResult } from '../../workflows/campaign/index.js';
import { CHROMIUM, renderedDom, screenshot } from '../helpers/chromium.js';
import { runCliAsync } from '../pipeline/cli.js';
import { eventsOfAllRuns } from '../pipeline/histories.js';

// The real `finalstate demo --preset smoke --fresh --json`, in a child process: its own policy server (the tiny base
// model, really served), Python gpu worker, control and episode workers, on the shared Temporal and PostgreSQL. The
// campaign it leaves in Temporal and the control database is its audit trail, so the test keeps it.

interface DemoOutput {
  campaignId: string;
  trainedStep: number;
  poolSize: number;
  phases: { phase: string; seconds: number }[];
  report: string;
  unfinished: UnfinishedVerdict;
}

const { preset } = loadPreset('smoke');
const configured = preset.campaign;

describe('finalstate demo --preset smoke', () => {
  const config = loadConfig();
  let out: DemoOutput;
  let progress: string;
  let state: CampaignState;
  let client: Client;
  let control: pg.Pool;

  before(async () => {
    const run = await runCliAsync(['demo', '--preset', 'smoke', '--fresh', '--json'], 8 * 60_000);
    assert.equal(run.status, 0, `demo exited ${run.status}:\n${run.stderr.slice(-4000)}`);
    out = JSON.parse(run.stdout) as DemoOutput;
    progress = run.stderr;
    client = await connectClient(config);
    control = new pg.Pool({ ...connectionConfig(config), max: 2 });
    const handle = client.workflow.getHandle(out.campaignId);
    assert.equal((await handle.describe()).status.name, 'COMPLETED');
    state = ((await handle.result()) as CampaignResult).state;
  });
  after(async () => {
    await control?.end();
    await client?.connection.close();
  });

  test('every phase ran: probe, select, base evaluation, each GRPO step, final evaluation', () => {
    assert.match(out.campaignId, /^demo-smoke-[0-9a-f]{10}-r\d+$/, '--fresh starts a new run of the derived id');
    assert.equal(state.phase, 'done');
    assert.ok(state.probeResultSet, 'the probe wrote a result set');

    assert.ok(state.poolUri, 'select froze a pool');
    const frozen = FrozenPool.parse(JSON.parse(fs.readFileSync(localPathOf(state.poolUri), 'utf8')));
    assert.ok(state.pool && state.pool.length > 0, 'the frozen pool is not empty');
    assert.deepEqual(state.pool, frozen.pool);
    assert.equal(out.poolSize, state.pool.length);

    assert.equal(state.step, configured.steps);
    assert.deepEqual(
      state.steps.map((s) => s.step),
      Array.from({ length: configured.steps }, (_, i) => i + 1),
      'one summary per configured step',
    );
    for (const s of state.steps)
      assert.equal(s.policyVersion, String(s.step), `step ${s.step} published policy version ${s.step}`);
    assert.equal(state.policyVersion, String(configured.steps));
    assert.ok(state.checkpointUri, 'the last step wrote a checkpoint');
    const checkpoint = localPathOf(state.checkpointUri);
    assert.ok(fs.existsSync(path.join(checkpoint, 'config.json')), `a Hugging Face checkpoint in ${checkpoint}`);

    const evaluated = state.evalResultSets.map((e) => e.step);
    assert.ok(evaluated.includes(0), `the base policy was evaluated (evaluated steps ${evaluated.join(', ')})`);
    assert.ok(evaluated.includes(configured.steps), 'the trained policy was evaluated after the last step');
    assert.equal(out.trainedStep, configured.steps);
    // The unfinished-episodes criterion reads the probe (base policy) and the last steps' rollouts from the episodes.
    assert.ok(out.unfinished.base.episodes > 0, 'probe episodes judged');
    assert.ok(out.unfinished.trained.episodes > 0, 'rollout episodes judged');
    assert.equal(typeof out.unfinished.met, 'boolean');

    const printed = out.phases.map((p) => p.phase);
    for (const phase of [
      'probe',
      'evaluate base policy',
      `train step ${configured.steps}/${configured.steps}`,
      `evaluate after step ${configured.steps}`,
    ]) {
      assert.ok(printed.includes(phase), `the printed phases (${printed.join(', ')}) include ${phase}`);
    }
    for (const p of out.phases) assert.ok(p.seconds >= 0, `wall time of ${p.phase}`);
    assert.match(
      progress,
      new RegExp(`select: pool of ${state.pool.length} tasks frozen`),
      'the progress (stderr with --json) reports the select phase',
    );
  });

  test('the report exists and renders in headless Chromium with its tables', () => {
    assert.ok(fs.existsSync(out.report), `report ${out.report}`);
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: run infra/setup.sh (it installs Debian's chromium)`);
    const html = fs.readFileSync(out.report, 'utf8');
    assert.match(html, new RegExp(`Campaign ${out.campaignId}`));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-smoke-'));
    try {
      const shot = screenshot(out.report, path.join(dir, 'screenshot.png'));
      assert.ok(
        shot.nonWhiteFraction > 0.01,
        `screenshot is blank (${(100 * shot.nonWhiteFraction).toFixed(2)}% non-white pixels)`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const dom = renderedDom(out.report);
    for (const id of [
      'table-comparison',
      'table-comparison-by-domain',
      'table-cost',
      'table-cost-with-training',
      'table-flips',
      'table-coverage',
      'table-coverage-entropy',
      'table-pool',
    ])
      assert.match(dom, new RegExp(`<table id="${id}"`));
    assert.match(dom, /<td>pass@1<\/td><td class="num">\d+\.\d\d%<\/td>/, 'the comparison table has its pass@1 row');
    assert.match(dom, /<svg[^>]+id="chart-pass1-per-eval"/);
  });

  test("the campaign's episodes are in the control database and in Temporal's history, one for one", async () => {
    const id = out.campaignId;
    assert.equal(state.episodes.infraFailed, 0, 'no infrastructure failure in the smoke run');

    // The children the campaign started, read from its history rather than assumed.
    const children = (await eventsOfAllRuns(client, id)).flatMap(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [],
    );
    // Asynchronous steps (the preset's async.maxStaleness 1): step 2 starts while step 1 trains; one evaluation after.
    const expected = [
      `${id}/preflight`,
      `${id}/probe`,
      `${id}/eval-step-0`,
      ...state.steps.map((s) => `${id}/step-${s.step}`),
      `${id}/eval-step-${configured.steps}`,
    ];
    assert.deepEqual(children, expected);

    const count = async (sql: string, params: string[]) =>
      Number((await control.query<{ n: string }>(sql, params)).rows[0]!.n);
    const runEpisodes = async (workflowId: string) =>
      (await eventsOfAllRuns(client, workflowId)).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runEpisode',
      ).length;
    let scheduledInAll = 0;
    // every child but the memory preflight (a gpu-queue activity) plays episodes
    for (const child of children.filter((c) => !c.endsWith('/preflight'))) {
      const scheduled = await runEpisodes(child);
      const episodes = await count(
        "SELECT count(*) AS n FROM episodes WHERE campaign_id = $1 AND starts_with(episode_id, $2 || '/')",
        [id, child],
      );
      const rows = await count(
        'SELECT count(*) AS n FROM campaign_result_rows WHERE campaign_id = $1 AND result_set = $2',
        [id, child],
      );
      assert.ok(scheduled > 0, `${child} ran episodes`);
      assert.equal(
        episodes,
        scheduled,
        `${child}: episode records in the control database = runEpisode activities in its history`,
      );
      assert.equal(rows, scheduled, `${child}: result rows = runEpisode activities`);
      scheduledInAll += scheduled;
    }
    assert.equal(
      await runEpisodes(`${id}/step-1`),
      configured.groupsPerStep * configured.rolloutsPerGroup,
      'a step runs groups x rollouts episodes (no replacement in the smoke preset)',
    );

    const inDatabase = await count('SELECT count(*) AS n FROM episodes WHERE campaign_id = $1', [id]);
    assert.equal(inDatabase, scheduledInAll, 'no episode of the campaign outside its children');
    assert.equal(state.episodes.done, inDatabase, 'the campaign counts every episode recorded');
  });

  test("asynchronous steps: every trained turn was sampled inside its update's window, as its trajectory records", async () => {
    const id = out.campaignId;
    const maxStaleness = configured.async?.maxStaleness ?? 0;
    assert.equal(maxStaleness, 1, 'the smoke preset runs asynchronous steps');
    const seen: Record<number, string[]> = {};
    for (const { step } of state.steps) {
      const result = (await client.workflow.getHandle(`${id}/step-${step}`).result()) as GrpoStepResult;
      const batch = await readTrainingBatch(result.batchUri);
      assert.ok(batch.episodes.length > 0);
      const versions = new Set<number>();
      for (const e of batch.episodes) {
        const { uri } = (
          await control.query<{ uri: string }>(
            "SELECT record->'outcome'->>'trajectoryUri' AS uri FROM episodes WHERE episode_id = $1",
            [e.episodeId],
          )
        ).rows[0]!;
        const trajectory = Trajectory.parse(JSON.parse(fs.readFileSync(localPathOf(uri), 'utf8')));
        for (const segment of trajectory.segments.filter((s) => s.kind === 'sample'))
          versions.add(versionNumber(segment.policyVersion));
      }
      for (const v of versions)
        assert.ok(
          v >= oldestUsableVersion(step, maxStaleness) && v <= step - 1,
          `step ${step} trained on a turn of version ${v}, outside [${oldestUsableVersion(step, maxStaleness)}, ${step - 1}]`,
        );
      seen[step] = [...versions].sort().map(String);
    }
    const [first, second] = await Promise.all(
      [1, 2].map((s) => client.workflow.getHandle(`${id}/step-${s}`).describe()),
    );
    console.log(
      `versions trained on per step: ${JSON.stringify(seen)}; step 2 started ${((second!.startTime.getTime() - first!.closeTime!.getTime()) / 1000).toFixed(1)} s after step 1 closed (negative: while it trained)`,
    );
  });

  test("audit and tracking: a failed episode with its diff, the report's episode pages, summaries in Temporal, step metrics in TensorBoard", async () => {
    const id = out.campaignId;
    const failed = (
      await control.query<{ episode_id: string }>(
        "SELECT episode_id FROM episodes WHERE campaign_id = $1 AND reward = 0 AND json_array_length(record->'grade'->'diff') > 0 ORDER BY episode_id LIMIT 1",
        [id],
      )
    ).rows[0];
    assert.ok(failed, 'the undertrained smoke policy fails an episode with a diff');
    const shown = await runCliAsync(['episode', 'show', failed.episode_id]);
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, /^  \S+ t\d+ · reward 0 · /m);
    assert.match(shown.stdout, /^final-state diff \(\d+\)$/m);

    // The report links to episode pages that exist: the step index and every failure of the trained policy.
    const html = fs.readFileSync(out.report, 'utf8');
    const links = [...new Set([...html.matchAll(/href="(episodes\/[^"]+)"/g)].map((m) => m[1]!))];
    assert.ok(links.includes('episodes/step-1.html'), `step 1 links to its episodes (${links.length} links)`);
    for (const link of links) assert.ok(fs.existsSync(path.join(path.dirname(out.report), link)), `${link} exists`);
    const failures = Number(
      (
        await control.query<{ n: string }>(
          'SELECT count(*) AS n FROM episodes WHERE starts_with(episode_id, $1) AND reward = 0',
          [`${id}/eval-step-${configured.steps}/`],
        )
      ).rows[0]!.n,
    );
    assert.equal(
      links.filter((l) => l.includes(`eval-step-${configured.steps}`)).length >= Math.min(failures, 100),
      true,
      'each failure of the trained policy links to its page',
    );

    // Temporal: each runEpisode carries its summary when scheduled and its outcome's summary line in its result.
    const decode = (p: unknown) => defaultPayloadConverter.fromPayload(p as never) as unknown;
    const events = await eventsOfAllRuns(client, `${id}/step-1`);
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runEpisode');
    assert.ok(scheduled.length > 0);
    for (const e of scheduled)
      assert.match(String(decode(e.userMetadata?.summary)), /^\S+ t\d+ · step 1 g\d+ · .+\/step-1\/g\d+-t\d+$/);
    const results = events
      .flatMap((e) => e.activityTaskCompletedEventAttributes?.result?.payloads ?? [])
      .map((p) => decode(p) as { summary?: string });
    assert.ok(
      results
        .filter((r) => r.summary !== undefined)
        .every((r) => /^\S+ t\d+ · reward [01] · .+ · \d+ calls? · \w+$/.test(r.summary!)) &&
        results.some((r) => r.summary),
      'outcome summary lines',
    );
    const children = (await eventsOfAllRuns(client, id)).filter(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
    );
    for (const e of children)
      assert.match(
        String(decode(e.userMetadata?.summary)),
        /^(memory preflight of the policy update|probe the base policy|evaluate the|GRPO step \d+\/\d+)/,
      );

    // TensorBoard: the event files, read back with TensorBoard's own event accumulator, hold each step's summary.
    const runDir = path.join(config.dataPath, 'tensorboard', id);
    const read = spawnSync(
      fromRoot(config.python.venv, 'bin', 'python'),
      ['-m', 'finalstate.tracking.read_back', runDir],
      { encoding: 'utf8', env: { ...process.env, PYTHONPATH: fromRoot('python') } },
    );
    assert.equal(read.status, 0, read.stderr);
    const scalars = JSON.parse(read.stdout) as Record<string, Array<[number, number]>>;
    const at = (tag: string, step: number) => scalars[tag]?.find(([s]) => s === step)?.[1];
    const close = (a: number | undefined, b: number, what: string) =>
      assert.ok(
        a !== undefined && Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b)),
        `${what}: logged ${a}, summary ${b}`,
      );
    for (const s of state.steps) {
      close(at('train/mean_reward', s.step), s.meanReward, `step ${s.step} mean reward`);
      close(at('train/informative_fraction', s.step), s.informativeFraction, `step ${s.step} informative fraction`);
      close(at('train/loss', s.step), s.loss, `step ${s.step} loss`);
      close(at('train/clip_fraction', s.step), s.clipFraction, `step ${s.step} clip fraction`);
      close(at('train/approx_kl', s.step), s.approxKl!, `step ${s.step} approx KL`);
      close(at('time/step_s', s.step), s.wallSeconds!.total, `step ${s.step} wall time`);
    }
    for (const e of state.evalPoints) close(at('eval/pass@1', e.step), e.pass1, `pass@1 at step ${e.step}`);
    assert.ok(
      Object.keys(scalars).some((t) => /^eval\/(retail|travel)\/pass@1$/.test(t)),
      'per-domain pass@1',
    );
  });
});

describe('finalstate demo: preset mistakes', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-preset-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a bad preset file is refused, naming the file and the field', async () => {
    const file = path.join(dir, 'zero-steps.json');
    fs.writeFileSync(file, JSON.stringify({ ...preset, campaign: { ...preset.campaign, steps: 0 } }));
    const zero = await runCliAsync(['demo', '--preset', file, '--json']);
    assert.equal(zero.status, 2, zero.stderr);
    assert.match(zero.stderr, new RegExp(`demo preset ${file}: invalid\\n  campaign\\.steps: `));

    const unknown = path.join(dir, 'unknown-key.json');
    fs.writeFileSync(unknown, JSON.stringify({ ...preset, campaign: { ...preset.campaign, stepz: 2 } }));
    const res = await runCliAsync(['demo', '--preset', unknown]);
    assert.equal(res.status, 2, res.stderr);
    assert.match(res.stderr, new RegExp(`demo preset ${unknown}: invalid\\n  campaign: .*"stepz"`));
  });

  test('an unknown preset name lists the known presets', async () => {
    const res = await runCliAsync(['demo', '--preset', 'no-such-preset']);
    assert.equal(res.status, 2, res.stderr);
    const known = /no preset "no-such-preset" \(known: ([^;]+);/.exec(res.stderr);
    assert.ok(known, res.stderr);
    const listed = known[1]!.split(', ').sort();
    assert.ok(listed.includes('smoke'), `known presets listed: ${listed.join(', ')}`);
    assert.deepEqual(
      listed,
      fs
        .readdirSync(PRESET_DIR)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -'.json'.length))
        .sort(),
      `every file in ${PRESET_DIR}`,
    );
  });
});

// Both demo runs in one file: the smoke preset's policy server has one fixed port, so they must not run in parallel.
const config = loadConfig();

/** Runs `finalstate demo` and sends it SIGINT once `line` shows in its progress; resolves with its exit and output. */
function interruptWhen(args: string[], line: RegExp): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fromRoot('bin', 'finalstate.js'), ...args], {
      cwd: fromRoot(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let sent = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`demo never printed ${line} within 6 minutes:\n${stderr.slice(-3000)}`));
    }, 6 * 60_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!sent && line.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.stdout.resume();
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('finalstate demo: Ctrl-C and the same command again', () => {
  let resumeClient: Client | undefined;
  let resumeControl: pg.Pool | undefined;
  after(async () => {
    await resumeControl?.end();
    await resumeClient?.connection.close();
  });

  test('Ctrl-C stops the demo; the same command continues the same campaign without redoing finished phases', async () => {
    const interrupted = await interruptWhen(
      ['demo', '--preset', 'smoke', '--fresh', '--json'],
      /evaluate base policy: http/,
    );
    assert.equal(interrupted.code, 130, interrupted.stderr.slice(-3000));
    const id = /run the same command again to continue (\S+)\./.exec(interrupted.stderr)?.[1];
    assert.ok(id, `the interrupted demo names the campaign to continue:\n${interrupted.stderr.slice(-2000)}`);

    const client = (resumeClient = await connectClient(config));
    const handle = client.workflow.getHandle(id);
    assert.equal(
      (await handle.describe()).status.name,
      'RUNNING',
      'the campaign waits in Temporal while no worker runs',
    );

    const resumed = await runCliAsync(['demo', '--preset', 'smoke', '--json'], 6 * 60_000);
    assert.equal(resumed.status, 0, resumed.stderr.slice(-3000));
    const out = JSON.parse(resumed.stdout) as { campaignId: string };
    assert.equal(out.campaignId, id, 'the same command (no --fresh) continued the interrupted campaign');
    assert.match(resumed.stderr, new RegExp(`continuing campaign ${id} at step 0`));
    assert.doesNotMatch(resumed.stderr, /^probe: http/m, 'the finished probe was not run again');

    const state = ((await handle.result()) as CampaignResult).state;
    assert.equal(state.phase, 'done');
    const children = (await eventsOfAllRuns(client, id)).flatMap(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [],
    );
    assert.deepEqual(
      children,
      [`${id}/preflight`, `${id}/probe`, `${id}/eval-step-0`, `${id}/step-1`, `${id}/step-2`, `${id}/eval-step-2`],
      'each phase started once',
    );

    // Episodes of the probe, which finished before Ctrl-C: one record per scheduled activity, none added by the resumed run.
    const control = (resumeControl = new pg.Pool({ ...connectionConfig(config), max: 1 }));
    const scheduled = (await eventsOfAllRuns(client, `${id}/probe`)).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runEpisode',
    ).length;
    const recorded = Number(
      (
        await control.query<{ n: string }>(
          "SELECT count(*) AS n FROM episodes WHERE starts_with(episode_id, $1 || '/')",
          [`${id}/probe`],
        )
      ).rows[0]!.n,
    );
    assert.ok(scheduled > 0);
    assert.equal(recorded, scheduled);
  });
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { LocalArtifactStore } from '../../storage/artifacts.js';
import { loadConfig } from '../../infra/config.js';
import { fromRoot } from '../../core/paths.js';
import { connectionConfig } from '../../environment/connection.js';
import { connectClient } from '../../infra/temporal-client.js';
import type { ArtifactStore } from '../../storage/artifacts.js';
import type { EpisodeHooks, EpisodeRunner } from '../../runtime/episode/runner.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../wiring/episode-runtime.js';
import type { EpisodeOutcome, EpisodeRequest } from '../../schemas/episode.js';
import type { Trajectory } from '../../schemas/trajectory.js';
import { CampaignConfig } from '../../schemas/campaign.js';
import { campaign } from '../../workflows/campaign.js';
import { statusQuery } from '../../workflows/definitions.js';
import { startControlWorker, type RunningWorker } from '../../workers/control.js';
import { startEpisodeWorker } from '../../workers/episodes.js';
import { uniqueName } from '../helpers/index.js';
import { sharedWorkflowBundle } from '../pipeline/bundle.js';
import { startStandInGpuWorker } from '../pipeline/stand-in-gpu-worker.js';

// Follows docs/domain-packs.md from scratch, as a new user would, in a fresh temporary directory outside the
// repository: scaffold, build with tsc against the emitted declarations, the pack's own test, check, generate,
// validate, verify, one episode, and a smoke campaign whose workers load the pack from its configuration file.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-tutorial-'));
const packDir = path.join(work, 'bike-rental');
const packConfig = path.join(packDir, 'finalstate.config.json');
const { FINALSTATE_DOMAIN_MODULES: _unused, ...inherited } = process.env;
/** The tutorial's shell: the pack registered through its config file only. */
const env = { ...inherited, FINALSTATE_CONFIG: packConfig };

/**
 * TEST-ONLY STAND-IN for a served model's token trajectory. The episodes are real (the DatabaseEpisodeRunner with the
 * oracle policy, on the pack's database and grader); the oracle samples no tokens, and a GRPO step needs some, so
 * each outcome gets a tiny trajectory (as test/pipeline's seeded runner writes) for buildBatch and the stand-in gpu
 * worker. A model is what a CI run cannot have.
 */
class TrainableOracleRunner implements EpisodeRunner {
  constructor(
    private readonly inner: EpisodeRunner,
    private readonly artifacts: ArtifactStore,
  ) {}
  async run(request: EpisodeRequest, hooks?: EpisodeHooks): Promise<EpisodeOutcome> {
    const outcome = await this.inner.run(request, hooks);
    const trajectory: Trajectory = {
      tokenIds: [1, 10 + outcome.reward, 2],
      lossMask: [0, 1, 1],
      rolloutLogprobs: [0, -0.5, -0.25],
      segments: [
        { kind: 'observation', start: 0, end: 1, textStart: 0, textEnd: 1 },
        { kind: 'sample', start: 1, end: 3, textStart: 1, textEnd: 3, policyVersion: 'oracle', finishReason: 'stop' },
      ],
      policyVersions: ['oracle'],
      drift: null,
      trainable: true,
    };
    const trajectoryUri = await this.artifacts.put(
      `${request.episodeId}/stand-in-trajectory.json`,
      JSON.stringify(trajectory),
    );
    return { ...outcome, trajectoryUri, trainable: true };
  }
}

function run(file: string, args: string[], cwd = packDir): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const finalstate = (...args: string[]) =>
  run(process.execPath, [fromRoot('bin', 'finalstate.js'), ...args], fs.existsSync(packDir) ? packDir : work);
const ok = (r: { code: number; stdout: string; stderr: string }, what: string) =>
  assert.equal(r.code, 0, `${what} failed:\n${r.stdout}\n${r.stderr}`);
const repoState = () =>
  new Promise<string>((resolve) =>
    execFile(
      'git',
      ['status', '--porcelain', '--', 'domains', 'environment', 'schemas', 'tasks', 'templates', 'package.json'],
      { cwd: fromRoot() },
      (_e, out) => resolve(out),
    ),
  );

let repoBefore: string;
before(async () => {
  repoBefore = await repoState();
});
after(() => fs.rmSync(work, { recursive: true, force: true }));

test('the tutorial, step by step: an external pack builds, generates, validates, verifies, runs an episode and a smoke campaign', async (t) => {
  const started = Date.now();
  const step = (label: string) => t.diagnostic(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);

  ok(await finalstate('domain', 'init', packDir), 'domain init');
  assert.ok(fs.lstatSync(path.join(packDir, 'node_modules', 'finalstate')).isSymbolicLink());
  ok(await run(process.execPath, [fromRoot('node_modules', 'typescript', 'bin', 'tsc'), '-p', packDir]), 'tsc');
  assert.ok(
    fs.existsSync(path.join(packDir, 'dist', 'src', 'index.js')) &&
      fs.existsSync(path.join(packDir, 'dist', 'src', 'index.d.ts')),
  );
  ok(await run(process.execPath, ['--test', 'dist/test/']), "the pack's own test");
  step('scaffolded and built');

  const check = await finalstate('tasks', 'check', '--count', '400', '--json');
  ok(check, 'tasks check');
  const [sample] = JSON.parse(check.stdout) as { domain: string; tasks: number; violations: number }[];
  assert.deepEqual(
    { domain: sample!.domain, violations: sample!.violations },
    { domain: 'bike_rental', violations: 0 },
  );

  const withoutDir = await finalstate('tasks', 'generate');
  assert.equal(withoutDir.code, 2);
  assert.match(withoutDir.stderr, /--dir is required for the external pack bike_rental/);
  const generated = await finalstate('tasks', 'generate', '--dir', 'tasks', '--count', '6');
  ok(generated, 'tasks generate');
  assert.match(generated.stderr, /^note: bike_rental does not serve the mini profile; skipped$/m);
  assert.deepEqual(fs.readdirSync(path.join(packDir, 'tasks')).sort(), [
    'bike_rental-eval-full.jsonl',
    'bike_rental-eval-full.manifest.json',
    'bike_rental-train-full.jsonl',
    'bike_rental-train-full.manifest.json',
  ]);
  ok(await finalstate('tasks', 'validate', 'tasks/bike_rental-train-full.jsonl'), 'tasks validate');
  step('generated and validated');

  const verify = await finalstate('tasks', 'verify', '--dir', 'tasks', '--concurrency', '4', '--json');
  ok(verify, 'tasks verify');
  const counts = JSON.parse(verify.stdout) as {
    tasks: number;
    oracle: { passed: number; total: number };
    noop: { passed: number; readOnly: number };
    mutations: { total: number; failedAsExpected: number };
  };
  assert.equal(counts.tasks, 12);
  assert.equal(counts.oracle.passed, 12);
  assert.equal(counts.noop.passed, counts.noop.readOnly);
  assert.ok(
    counts.mutations.total >= 6 && counts.mutations.failedAsExpected === counts.mutations.total,
    JSON.stringify(counts),
  );
  step('verified');

  const firstTask = fs
    .readFileSync(path.join(packDir, 'tasks', 'bike_rental-train-full.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; tags: string[] })
    .find((task) => task.tags[0] === 'extend_rental')!;
  const episode = await finalstate('run', '--task', firstTask.id, '--policy', 'oracle', '--dir', 'tasks', '--json');
  ok(episode, 'finalstate run');
  assert.equal((JSON.parse(episode.stdout) as { outcome: { reward: number } }).outcome.reward, 1);
  step('one episode');

  // The smoke campaign: workers read the same configuration file (its `domains`) as the commands above.
  const config = loadConfig({ file: packConfig });
  assert.deepEqual(config.domains, ['./dist/src/index.js']);
  const queues = {
    control: uniqueName('tut-control'),
    episodes: uniqueName('tut-episodes'),
    gpu: uniqueName('tut-gpu'),
  };
  const campaignId = uniqueName('tutorial');
  const workers: RunningWorker[] = [];
  let runtime: EpisodeRuntime | undefined;
  const client = await connectClient(config);
  const pool = new pg.Pool({ ...connectionConfig(config), max: 1 });
  try {
    runtime = await createEpisodeRuntime(config, { backend: { sparesPerTemplate: 0 } });
    assert.ok(runtime.backend.registry.has('bike_rental'), 'the episode runtime loaded the pack from the config file');
    const artifacts = new LocalArtifactStore(path.join(work, 'artifacts'));
    workers.push(
      await startControlWorker(config, {
        taskQueue: queues.control,
        workflowBundle: await sharedWorkflowBundle(),
        deps: { artifacts },
      }),
    );
    workers.push(
      await startEpisodeWorker(config, {
        runner: new TrainableOracleRunner(runtime.runner, artifacts),
        taskQueue: queues.episodes,
        concurrency: 4,
        shutdownGraceTime: '2 seconds',
      }),
    );
    workers.push(await startStandInGpuWorker(config, queues.gpu));
    const tasksDir = path.join(packDir, 'tasks');
    const campaignConfig = {
      ...CampaignConfig.parse({
        campaignId,
        policy: { kind: 'oracle' },
        tasks: {
          train: { taskSet: tasksDir, split: 'train', limit: 3 },
          eval: { taskSet: tasksDir, split: 'eval', limit: 3 },
        },
        probing: { n: 1, nMax: 1, adaptive: false, window: 4 },
        selection: { keep: [0, 1, 2, 3, 4] },
        steps: 1,
        groupsPerStep: 1,
        rolloutsPerGroup: 2,
        maxReplacementRounds: 0,
        keepZeroVarianceGroups: true,
        update: { baseModel: '/nonexistent/base-model' },
        evaluation: { everySteps: 1, k: 1, window: 4 },
        episodes: { maxAttempts: 2, initialInterval: '100ms', maximumInterval: '500ms', heartbeatTimeout: '30s' },
        taskQueues: queues,
      }),
      taskQueues: queues,
    };
    const handle = await client.workflow.start(campaign, {
      taskQueue: queues.control,
      workflowId: campaignId,
      args: [{ config: campaignConfig }],
    });
    // A failed step parks the campaign (phase step-failed, waiting for replay-step) instead of ending it: watch for it.
    let settled = false;
    const watcher = (async () => {
      while (!settled) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        if (settled) return;
        const status = await handle.query(statusQuery).catch(() => undefined);
        if (status?.phase === 'step-failed') throw new Error(`the campaign's step failed: ${JSON.stringify(status)}`);
      }
    })();
    const state = await Promise.race([
      handle.result().then((r) => r.state),
      watcher.then(() => undefined as never),
    ]).finally(() => (settled = true));
    await watcher;
    assert.equal(state.phase, 'done');
    assert.equal(state.step, 1);
    assert.deepEqual(
      state.evalPoints.map((e) => e.step),
      [0, 1],
    );
    const rows = await pool.query<{ reward: number }>(
      'SELECT reward FROM campaign_result_rows WHERE campaign_id = $1',
      [campaignId],
    );
    assert.ok(rows.rows.length >= 3 + 2 + 3 + 3, `${rows.rows.length} result rows`);
    assert.ok(
      rows.rows.every((r) => r.reward === 1),
      'every oracle episode of the pack earned 1',
    );
  } finally {
    for (const w of workers.reverse()) await w.stop().catch(() => undefined);
    await runtime?.close();
    await pool.query('DELETE FROM campaign_result_rows WHERE campaign_id = $1', [campaignId]).catch(() => undefined);
    await pool.end();
    await client.connection.close();
  }
  step('smoke campaign');

  assert.equal(await repoState(), repoBefore, 'following the tutorial wrote nothing into the repository');
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadPreset } from '../../cli/demo/preset.js';
import { fromRoot } from '../../core/paths.js';
import { connectClient } from '../../workers/temporal-client.js';
import { loadConfig } from '../../workers/config.js';
import type { CampaignResult } from '../../workflows/campaign/index.js';

// Follows docs/domain-packs.md from scratch, as a new user would, in a fresh temporary directory outside the
// repository: scaffold, build with tsc against the emitted declarations, the pack's own test, check, generate,
// validate, verify, one episode, and `finalstate demo --pack .`: the real smoke campaign (base model built on the
// pack's tasks, served by the policy server, trained by the Python gpu worker) to its report.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-tutorial-'));
const packDir = path.join(work, 'bike-rental');
const packConfig = path.join(packDir, 'finalstate.config.json');
const { FINALSTATE_DOMAIN_MODULES: _unused, ...inherited } = process.env;
/** The tutorial's shell: the pack registered through its config file only. */
const env = { ...inherited, FINALSTATE_CONFIG: packConfig };

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

test('the tutorial, step by step: an external pack builds, generates, validates, verifies, runs an episode and a campaign to its report', async (t) => {
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

  const check = await finalstate('tasks', 'check', '--json');
  ok(check, 'tasks check');
  const [sample] = JSON.parse(check.stdout) as { domain: string; tasks: number; violations: number }[];
  assert.deepEqual(
    { domain: sample!.domain, violations: sample!.violations },
    { domain: 'bike_rental', violations: 0 },
  );

  const withoutDir = await finalstate('tasks', 'generate');
  assert.equal(withoutDir.code, 2);
  assert.match(withoutDir.stderr, /--dir is required for the external pack bike_rental/);
  const generated = await finalstate('tasks', 'generate', '--dir', 'tasks', '--count', '8');
  ok(generated, 'tasks generate');
  assert.deepEqual(fs.readdirSync(path.join(packDir, 'tasks')).sort(), [
    'bike_rental-eval-full.jsonl',
    'bike_rental-eval-full.manifest.json',
    'bike_rental-eval-mini.jsonl',
    'bike_rental-eval-mini.manifest.json',
    'bike_rental-train-full.jsonl',
    'bike_rental-train-full.manifest.json',
    'bike_rental-train-mini.jsonl',
    'bike_rental-train-mini.manifest.json',
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
  assert.equal(counts.tasks, 32);
  assert.equal(counts.oracle.passed, 32);
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

  // The last step: a campaign on the pack in one command, with the pack's config file as the only registration.
  const demo = await finalstate('demo', '--pack', '.', '--fresh', '--json');
  ok(demo, 'finalstate demo --pack .');
  const out = JSON.parse(demo.stdout) as { campaignId: string; trainedStep: number; poolSize: number; report: string };
  assert.match(out.campaignId, /^demo-smoke-bike-rental-[0-9a-f]{10}-r\d+$/);
  assert.equal(
    out.trainedStep,
    loadPreset('smoke').preset.campaign.steps,
    'every step of the smoke preset, which --pack runs',
  );
  assert.ok(out.poolSize > 0, "the probe of the pack's training tasks froze a pool");
  assert.match(fs.readFileSync(out.report, 'utf8'), /bike_rental/, "the report shows the pack's domain");
  const client = await connectClient(loadConfig({ env }));
  try {
    const { state } = (await client.workflow.getHandle(out.campaignId).result()) as CampaignResult;
    assert.equal(state.phase, 'done');
    assert.ok(
      state.pool!.every((id) => id.startsWith('bike_rental.')),
      `the pool holds the pack's training tasks only: ${state.pool!.join(', ')}`,
    );
  } finally {
    await client.connection.close();
  }
  step('campaign (finalstate demo --pack)');

  assert.equal(await repoState(), repoBefore, 'following the tutorial wrote nothing into the repository');
});

test('a scaffolded pack holds no absolute path, and builds and verifies after being copied to another layout', async () => {
  const first = path.join(work, 'laptop', 'packs', 'desk');
  ok(await finalstate('domain', 'init', first), 'domain init');
  // Everything the user commits (all but node_modules) is free of the machine's paths.
  const committed = (dir: string, prefix = ''): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.name !== 'node_modules')
      .flatMap((e) =>
        e.isDirectory() ? committed(path.join(dir, e.name), path.join(prefix, e.name)) : [path.join(prefix, e.name)],
      );
  for (const file of committed(first)) {
    const text = fs.readFileSync(path.join(first, file), 'utf8');
    // An absolute path starts with the root: "../../work/finalstate" (relative) contains the root's text, not at its start.
    for (const absolute of [fromRoot(), work])
      assert.doesNotMatch(
        text,
        new RegExp(`(^|[^.\\w/])${absolute.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
        `${file} names ${absolute}`,
      );
  }
  assert.ok(!path.isAbsolute(fs.readlinkSync(path.join(first, 'node_modules', 'finalstate'))));
  const spec = (
    JSON.parse(fs.readFileSync(path.join(first, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
  ).devDependencies.finalstate!;
  assert.match(spec, /^file:\.\.\//, 'finalstate is a dependency by a path relative to the pack');

  // Another machine: the committed files at another depth, finalstate installed from its own path there, as
  // `npm install -D <path to finalstate>` does (the dependency rewritten relative to the pack, a relative link).
  const moved = path.join(work, 'ci', 'checkout', 'teams', 'support', 'desk');
  for (const file of committed(first)) {
    fs.mkdirSync(path.dirname(path.join(moved, file)), { recursive: true });
    fs.copyFileSync(path.join(first, file), path.join(moved, file));
  }
  const relative = path.relative(moved, fromRoot());
  ok(await run('npm', ['pkg', 'set', `devDependencies.finalstate=file:${relative}`], moved), 'npm pkg set');
  fs.mkdirSync(path.join(moved, 'node_modules'));
  fs.symlinkSync(
    path.relative(path.join(moved, 'node_modules'), fromRoot()),
    path.join(moved, 'node_modules', 'finalstate'),
  );

  ok(await run(process.execPath, [fromRoot('node_modules', 'typescript', 'bin', 'tsc'), '-p', moved], moved), 'tsc');
  ok(await run(process.execPath, ['--test', 'dist/test/'], moved), "the pack's own test");
  const copied = { ...env, FINALSTATE_CONFIG: path.join(moved, 'finalstate.config.json') };
  const cli = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [fromRoot('bin', 'finalstate.js'), ...args],
        { cwd: moved, env: copied },
        (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
  ok(await cli('tasks', 'check', '--count', '100'), 'tasks check');
  ok(await cli('tasks', 'generate', '--dir', 'tasks', '--count', '3', '--split', 'eval'), 'tasks generate');
  const verify = await cli('tasks', 'verify', '--dir', 'tasks', '--json');
  ok(verify, 'tasks verify');
  assert.equal((JSON.parse(verify.stdout) as { oracle: { passed: number } }).oracle.passed, 6);
});

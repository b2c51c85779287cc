import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import type { ProfiledEpisode } from '../../schemas/turn-profile.js';
import {
  simulateCampaign,
  type SimMode,
  type SimResult,
  type SimSettings,
} from '../../testkit/cluster-sim/simulation.js';

// The scheduling arithmetic of bench/cluster-sim on constant latencies: one-turn episodes of 100 tokens on servers
// whose decode iteration takes 10 ms whatever the batch (C = 1 s a step), an update of U = 5 s and a publish of P = 2 s.
const episode: ProfiledEpisode = { turns: [[0, 100]], trailingTokens: 0, envMsPerTurn: 0, overheadMs: 0 };
const constant = (tokens: number, updateS: number): SimSettings => ({
  shape: { servers: 4, groups: 4, rollouts: 4, episodeSlots: 64, maxReplacementRounds: 3, extraGroupsInFlight: 0 },
  steps: 6,
  informativeFraction: 1,
  seed: 1,
  server: {
    iterationOverheadS: 0,
    weightsReadS: 0.01,
    kvReadPerContextTokenS: 0,
    computePerSequenceS: 0,
    prefillTokensPerS: Infinity,
    kvCacheTokens: Infinity,
  },
  tokenScale: tokens / 100,
  updateS: () => updateS,
  publishS: 2,
  drawGroup: (_random, rollouts) => Array.from({ length: rollouts }, () => episode),
});
const mode = (maxStaleness: number, oneServer = false): SimMode => ({
  name: `K=${maxStaleness}`,
  maxStaleness,
  oneServer,
});
const rounded = (xs: number[]) => xs.map((x) => Math.round(x * 1e6) / 1e6);
const close = (actual: number[], expected: number[]) => assert.deepEqual(rounded(actual), rounded(expected));

test('sync: a step takes C + U + P, every trained turn sampled by the weights the update starts from', () => {
  const r = simulateCampaign(constant(100, 5), mode(0));
  close(
    r.steps.map((s) => s.publishEnd),
    [8, 16, 24, 32, 40, 48],
  );
  assert.equal(Math.round(r.stepsPerHour), 450);
  assert.deepEqual(r.staleness, [6 * 16]);
  close([r.rolloutIdle, r.trainerIdle], [7 / 8, 3 / 8]);
});

test("today's main: the same steps on one server, the other servers idle throughout", () => {
  const r = simulateCampaign(constant(100, 5), mode(0, true));
  close([r.wallS, r.rolloutIdle], [48, 1 - 1 / 32]);
});

test('K = 1, update-bound: a step every U + P, each batch sampled one version behind but the first', () => {
  const r = simulateCampaign(constant(100, 5), mode(1));
  close(
    r.steps.map((s) => s.publishEnd),
    [8, 15, 22, 29, 36, 43],
  );
  assert.deepEqual(r.staleness, [16, 5 * 16]);
  close([r.trainerIdle], [1 - 30 / 43]);
  assert.equal(r.staleGroups, 0);
});

test('K = 1, rollout-bound: the publish waits for the turns under way, so a step takes C + P', () => {
  const r = simulateCampaign(constant(1000, 3), mode(1));
  const periods = r.steps.slice(1).map((s, i) => s.collectEnd - r.steps[i]!.collectEnd);
  close(periods.slice(1), [12, 12, 12, 12]);
  assert.deepEqual(r.staleness, [16, 5 * 16]);
});

test('continuous batching: a sequence decodes slower the more share its server, so one server collects 4x slower than 4', () => {
  const settings = constant(100, 5);
  const computeBound = { ...settings, server: { ...settings.server, weightsReadS: 0, computePerSequenceS: 0.0025 } };
  const collect = (r: SimResult) => r.steps[0]!.collectEnd - r.steps[0]!.collectStart;
  close(
    [collect(simulateCampaign(computeBound, mode(0))), collect(simulateCampaign(computeBound, mode(0, true)))],
    [1, 4],
  );
});

test('docs/results.md shows the tables its cluster-sim command prints: the command named above them, run as named', () => {
  const page = fs.readFileSync(fromRoot('docs', 'results.md'), 'utf8');
  const section = page.slice(page.indexOf('### A simulated cluster'));
  const command = /Measured [^(]*\(`(node dist\/bench\/cluster-sim\.js[^`]*)`/.exec(section)?.[1];
  assert.ok(command, 'the page names the command its tables come from');
  const [node, script, ...args] = command.split(/\s+/);
  // The simulation is deterministic for its seed: the same figures on every machine (about 2 s).
  const printed = execFileSync(node === 'node' ? process.execPath : node!, [fromRoot(script!), ...args], {
    cwd: fromRoot(),
    encoding: 'utf8',
  });
  const tables = printed
    .split('### ')
    .slice(1)
    .map((block) => block.split('\n').filter((line) => line.startsWith('|')));
  assert.equal(tables.length, 2, `the main table and the sweep:\n${printed}`);
  for (const table of tables) assert.ok(section.includes(table.join('\n')), `the page shows\n${table.join('\n')}`);
});

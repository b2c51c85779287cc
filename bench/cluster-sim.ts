// A simulated cluster (issue 34): N rollout servers, G groups x R rollouts a step with DAPO's replacement of
// zero-variance groups, a stand-in update of U seconds and a publish of P seconds, in virtual time (no sleeping), the
// same seed for every mode. Modes: today's main (every episode on one server, rollouts then update then a
// stop-the-world publish), sync (K = 0 over the fleet), K = 1 and K = 2 (step n+1 collects while step n trains; a
// publish pauses each server between turns). The scheduling rule is core/policy-versions.ts's, as in the workflows.
//   npx tsc -p tsconfig.json && node dist/bench/cluster-sim.js [--preset docs/examples/cluster.json] [--steps 50]
//     [--servers N] [--groups G] [--rollouts R] [--informative 0.8] [--token-scale 1] [--checkpoint-every N]
//     [--update-s U] [--publish-s P] [--write-gbps 2] [--read-gbps 2] [--params-b 27] [--mfu 0.4]
//     [--sweep-scales 1,16,64,256] [--seed 1] [--profile bench/data/turn-profile.json] [--json | --markdown]
//   node dist/bench/cluster-sim.js --profile-from DIR_OR_CAMPAIGN --source "what run it was" [--profile FILE]
// Episodes (turns, tokens per turn, time in tools and the user) are drawn from --profile, measured from real demo
// episodes by --profile-from. Prints figures; asserts nothing. --markdown prints the two tables as docs/results.md shows
// them (test/pipeline/cluster-sim.test.ts runs the command the page names and finds its tables there).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../core/paths.js';
import { TurnProfile } from '../schemas/turn-profile.js';
import { renderMarkdown, renderText, type Table } from '../stats/tables/table.js';
import { simulateCampaign, type SimMode, type SimResult, type SimSettings } from '../testkit/cluster-sim/simulation.js';
import { groupsFromProfile, profileSummary } from '../testkit/cluster-sim/turn-profile.js';
import { clusterFigures, INFORMATIVE_FRACTION, serverModel, updateFigures } from './cluster-sim-defaults.js';
import { episodesFromDirectory, episodesOfCampaign } from './turn-profile-source.js';

const { values } = parseArgs({
  options: {
    preset: { type: 'string', default: fromRoot('docs', 'examples', 'cluster.json') },
    profile: { type: 'string', default: fromRoot('bench', 'data', 'turn-profile.json') },
    'profile-from': { type: 'string' },
    source: { type: 'string' },
    steps: { type: 'string', default: '50' },
    servers: { type: 'string' },
    groups: { type: 'string' },
    rollouts: { type: 'string' },
    informative: { type: 'string', default: String(INFORMATIVE_FRACTION.value) },
    'token-scale': { type: 'string', default: '1' },
    'checkpoint-every': { type: 'string' },
    'update-s': { type: 'string' },
    'publish-s': { type: 'string' },
    'write-gbps': { type: 'string', default: '2' },
    'read-gbps': { type: 'string', default: '2' },
    'params-b': { type: 'string', default: '27' },
    mfu: { type: 'string', default: '0.4' },
    'sweep-scales': { type: 'string', default: '1,16,64,256' },
    seed: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    markdown: { type: 'boolean', default: false },
  },
});

function positive(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`cluster-sim: --${name} must be a positive number, got ${text}`);
  return n;
}

if (values['profile-from'] !== undefined) {
  await writeProfile(values['profile-from'], values.profile);
  process.exit(0);
}

const MODES: SimMode[] = [
  { name: "today's main (one server)", maxStaleness: 0, oneServer: true },
  { name: 'sync (K = 0)', maxStaleness: 0, oneServer: false },
  { name: 'K = 1', maxStaleness: 1, oneServer: false },
  { name: 'K = 2', maxStaleness: 2, oneServer: false },
];

const cluster = clusterFigures(path.relative(process.cwd(), values.preset));
const shape = {
  ...cluster.shape,
  servers: positive('servers', values.servers) ?? cluster.shape.servers,
  groups: positive('groups', values.groups) ?? cluster.shape.groups,
  rollouts: positive('rollouts', values.rollouts) ?? cluster.shape.rollouts,
};
const params = positive('params-b', values['params-b'])! * 1e9;
const server = serverModel(params, cluster.tensorParallel);
const update = updateFigures({
  params,
  trainingGpus: cluster.trainingGpus,
  mfu: positive('mfu', values.mfu)!,
  writeBytesPerS: positive('write-gbps', values['write-gbps'])! * 1e9,
  readBytesPerS: positive('read-gbps', values['read-gbps'])! * 1e9,
});
const fixedUpdateS = positive('update-s', values['update-s']);
const checkpointEvery = positive('checkpoint-every', values['checkpoint-every']) ?? cluster.checkpointEvery.value;
const profile = TurnProfile.parse(JSON.parse(fs.readFileSync(values.profile, 'utf8')));
const informative = positive('informative', values.informative)!;
const tokenScale = positive('token-scale', values['token-scale'])!;

function settings(scale: number, every: number): SimSettings {
  return {
    shape,
    steps: positive('steps', values.steps)!,
    informativeFraction: informative,
    seed: Number(values.seed),
    server: server.model,
    tokenScale: scale,
    updateS: (step, batchTokens) =>
      fixedUpdateS ??
      batchTokens * update.computeSPerToken + update.exportWriteS + (step % every === 0 ? update.stateWriteS : 0),
    publishS: positive('publish-s', values['publish-s']) ?? update.publishS,
    drawGroup: groupsFromProfile(profile),
  };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const collectS = (r: SimResult) => mean(r.steps.map((s) => s.collectEnd - s.collectStart));
const updateS = (r: SimResult) => mean(r.steps.map((s) => s.updateEnd - s.updateStart));
const publishS = (r: SimResult) => mean(r.steps.map((s) => s.publishEnd - s.updateEnd));

const main = settings(tokenScale, checkpointEvery);
const results = MODES.map((mode) => simulateCampaign(main, mode));
const sync = results[1]!;

/** Trained turns by versions behind the update's starting weights: 0, 1, 2, 3 or more. */
function staleness(r: SimResult): string[] {
  const total = r.staleness.reduce((a, b) => a + b, 0);
  const share = (from: number, to = from + 1) =>
    pct(r.staleness.slice(from, to).reduce((a, b) => a + b, 0) / Math.max(1, total));
  return [share(0), share(1), share(2), share(3, Infinity)];
}

const table: Table = {
  id: 'cluster-sim',
  title: `Simulated cluster: ${shape.servers} rollout servers, ${shape.groups} groups x ${shape.rollouts} rollouts, ${main.steps} steps, seed ${main.seed}`,
  headers: [
    'mode',
    'steps/h',
    'x sync',
    'rollout idle',
    'reloading',
    'trainer idle',
    'collect s',
    'update s',
    'publish s',
    'stale 0',
    '1',
    '2',
    '3+',
  ],
  rows: results.map((r) => [
    r.mode.name,
    r.stepsPerHour.toFixed(2),
    (r.stepsPerHour / sync.stepsPerHour).toFixed(2),
    pct(r.rolloutIdle),
    pct(r.rolloutReloading),
    pct(r.trainerIdle),
    collectS(r).toFixed(1),
    updateS(r).toFixed(1),
    publishS(r).toFixed(1),
    ...staleness(r),
  ]),
  note:
    'reloading: the part of the idle time the servers spend loading weights. collect s: mean seconds from a step ' +
    'starting its rollouts to its batch; publish s: from the update to every server serving it. ' +
    'stale: share of trained turns by how many versions their sampler was behind the weights the update started from.',
};

const scales =
  values['sweep-scales'] === '' ? [] : values['sweep-scales'].split(',').map((s) => positive('sweep-scales', s)!);
const episodeTokens = profileSummary(profile)['tokens per episode']!.mean;
const sweep = scales.flatMap((scale) =>
  [...new Set([1, 10, checkpointEvery])].map((every) => {
    const s = settings(scale, every);
    const [today, syncRun, k1, k2] = MODES.map((mode) => simulateCampaign(s, mode)) as [
      SimResult,
      SimResult,
      SimResult,
      SimResult,
    ];
    return { scale, every, today, sync: syncRun, k1, k2 };
  }),
);
const sweepTable: Table = {
  id: 'cluster-sim-sweep',
  title:
    "What drives it: episode length (every turn's tokens x scale) against the update (resumable state every N steps)",
  headers: [
    'tokens x',
    'tokens/episode',
    'state every',
    'collect s',
    'update + publish s',
    'sync steps/h',
    "today's x sync",
    'K = 1 x sync',
    'K = 1 rollout idle',
    'reloading',
    'K = 2 x sync',
  ],
  rows: sweep.map((w) => [
    String(w.scale),
    Math.round(episodeTokens * w.scale).toLocaleString('en-US'),
    String(w.every),
    collectS(w.sync).toFixed(1),
    (updateS(w.sync) + publishS(w.sync)).toFixed(1),
    w.sync.stepsPerHour.toFixed(2),
    (w.today.stepsPerHour / w.sync.stepsPerHour).toFixed(2),
    (w.k1.stepsPerHour / w.sync.stepsPerHour).toFixed(2),
    pct(w.k1.rolloutIdle),
    pct(w.k1.rolloutReloading),
    (w.k2.stepsPerHour / w.sync.stepsPerHour).toFixed(2),
  ]),
  note:
    "collect s and update + publish s: the sync run's means; reloading: the part of K = 1's idle time the servers spend loading weights. " +
    'The goal at the cluster.json shape: K = 1 at least 1.6x sync with rollout servers idle at most 10%.',
};

if (values.json) {
  console.log(
    JSON.stringify(
      {
        results: results.map(({ steps: _, ...r }) => r),
        sweep: sweep.map((w) => ({
          scale: w.scale,
          every: w.every,
          ...Object.fromEntries(
            (['today', 'sync', 'k1', 'k2'] as const).map((k) => {
              const { steps: _, mode: __, ...r } = w[k];
              return [k, r];
            }),
          ),
        })),
      },
      null,
      2,
    ),
  );
} else if (values.markdown) {
  console.log([renderMarkdown(table), ...(sweep.length ? ['', renderMarkdown(sweepTable)] : [])].join('\n'));
} else {
  const summary = profileSummary(profile);
  const lines = [
    `profile: ${path.relative(process.cwd(), values.profile)} (${profile.episodes.length} episodes; ${profile.source})`,
    ...Object.entries(summary).map(
      ([name, q]) => `  ${name}: mean ${q.mean.toFixed(1)}, p50 ${q.p50}, p90 ${q.p90}, p99 ${q.p99}, max ${q.max}`,
    ),
    `cluster: ${cluster.shapeSource}; ${shape.episodeSlots} episode slots`,
    `informative groups: ${pct(informative)} (${values.informative === String(INFORMATIVE_FRACTION.value) ? INFORMATIVE_FRACTION.source : '--informative'}); tokens x ${tokenScale}`,
    `rollout server: ${server.source}`,
    `update: ${fixedUpdateS !== undefined ? `${fixedUpdateS} s (--update-s)` : update.sources.update}; resumable state every ${checkpointEvery} step(s) (${values['checkpoint-every'] !== undefined ? '--checkpoint-every' : cluster.checkpointEvery.source})`,
    `publish: ${values['publish-s'] !== undefined ? `${values['publish-s']} s (--publish-s)` : `${update.publishS.toFixed(1)} s: ${update.sources.publish}`}`,
  ];
  console.log([...lines, '', renderText(table), '', ...(sweep.length ? [renderText(sweepTable)] : [])].join('\n'));
  const short = results.filter((r) => r.shortSteps > 0 || r.staleGroups > 0);
  if (short.length > 0)
    console.log(
      `steps short of G usable groups after maxReplacementRounds (trained on fewer), groups dropped as stale: ${short
        .map((r) => `${r.mode.name} ${r.shortSteps}, ${r.staleGroups}`)
        .join('; ')}`,
    );
}

async function writeProfile(from: string, out: string): Promise<void> {
  const isDir = fs.existsSync(from) && fs.statSync(from).isDirectory();
  const episodes = isDir ? episodesFromDirectory(from) : await episodesOfCampaign(from);
  const profile = TurnProfile.parse({
    source: values.source ?? (isDir ? `trajectories under ${from}` : `campaign ${from}`),
    measuredAt: new Date().toISOString(),
    episodes,
  });
  fs.mkdirSync(fromRoot('bench', 'data'), { recursive: true });
  const { episodes: rows, ...head } = profile;
  const body = rows.map((e) => `    ${JSON.stringify(e)}`).join(',\n');
  fs.writeFileSync(out, `${JSON.stringify(head, null, 2).slice(0, -2)},\n  "episodes": [\n${body}\n  ]\n}\n`);
  console.log(`wrote ${out}: ${episodes.length} episodes`);
  for (const [name, q] of Object.entries(profileSummary(profile)))
    console.log(`  ${name}: mean ${q.mean.toFixed(1)}, p50 ${q.p50}, p90 ${q.p90}, p99 ${q.p99}, max ${q.max}`);
}

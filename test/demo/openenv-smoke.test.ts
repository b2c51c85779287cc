import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { fromRoot } from '../../core/paths.js';
import { connectionConfig } from '../../environment/connection.js';
import { openEnvEpisodeId } from '../../runtime/episode/environments/openenv.js';
import type { CampaignState } from '../../schemas/campaign.js';
import { DemoPreset } from '../../schemas/demo.js';
import { EpisodeRecord } from '../../schemas/episode.js';
import { localPathOf } from '../../storage/artifacts.js';
import { loadConfig } from '../../workers/config.js';
import { connectClient } from '../../workers/temporal-client.js';
import type { CampaignResult } from '../../workflows/campaign/index.js';
import { freePort, runCliAsync } from '../helpers/index.js';
import { LedgerServer, type LedgerEvent } from '../helpers/openenv.js';

// The real `finalstate demo --preset FILE --fresh --json` on an OpenEnv environment of the tests' own (the ledger,
// on OpenEnv's server framework, on a free port): its tasks imported with `finalstate tasks import-openenv`, then
// probe, select, the base evaluation, one GRPO step and the evaluation after it through Temporal, on the shared stack,
// with the demo's own policy server (thinkingbox-smoke's tiny base model). The server is SIGKILLed once mid-episode,
// on the first agent action of a training episode (held until the kill), and restarted on its port: that episode is
// retried in a fresh session, never scored 0; every record's reward is the server's own verdict.
const config = loadConfig();
const PRESET = fromRoot('test', 'fixtures', 'openenv', 'openenv-smoke.json');
let server: LedgerServer;
let out: { campaignId: string; trainedStep: number };
let state: CampaignState;
let client: Client;
let control: pg.Pool;
let held: LedgerEvent;
let preset: DemoPreset;
let records: EpisodeRecord[];
let seconds: number;

/** The server's verdicts of a finalstate episode: its done events, attempt by attempt (their reset ids end in :a<n>). */
const doneOf = (episodeId: string) =>
  server.events.filter(
    (e) => e.event === 'done' && e.episode_id.startsWith(`${openEnvEpisodeId(episodeId, undefined)}:a`),
  );

before(async () => {
  const started = performance.now();
  server = new LedgerServer(await freePort());
  await server.start({ holdMatch: ':step-1:' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-openenv-smoke-'));
  const imports = await Promise.all([
    runCliAsync([
      'tasks',
      'import-openenv',
      '--url',
      server.url,
      '--seeds',
      '4',
      ...['--domain', 'ledger'],
      ...['--split', 'train', '--out', path.join(dir, 'train.jsonl')],
    ]),
    runCliAsync([
      'tasks',
      'import-openenv',
      '--url',
      server.url,
      ...['--task', 'ledger-2', '--task', 'ledger-3'],
      ...['--domain', 'ledger', '--split', 'eval', '--out', path.join(dir, 'eval.jsonl')],
    ]),
  ]);
  for (const run of imports) assert.equal(run.status, 0, run.stderr);
  const raw = JSON.parse(fs.readFileSync(PRESET, 'utf8')) as {
    campaign: { tasks: Record<string, { taskSet: string }> };
  };
  raw.campaign.tasks.train!.taskSet = dir;
  raw.campaign.tasks.eval!.taskSet = dir;
  preset = DemoPreset.parse(raw);
  const presetFile = path.join(dir, 'openenv-smoke.json');
  fs.writeFileSync(presetFile, JSON.stringify(raw));

  const demo = runCliAsync(['demo', '--preset', presetFile, '--fresh', '--json']);
  // the first agent action of a training episode is held; then the server dies under it and comes back
  const first = await Promise.race([server.next((e) => e.event === 'hold'), demo.then(() => undefined)]);
  assert.ok(first, 'the demo ended before a training episode reached the server');
  held = first;
  await server.kill();
  await server.start();
  const run = await demo;
  seconds = Math.round((performance.now() - started) / 1000);
  assert.equal(run.status, 0, `demo exited ${run.status}:\n${run.stderr.slice(-4000)}`);
  out = JSON.parse(run.stdout) as typeof out;
  client = await connectClient(config);
  control = new pg.Pool({ ...connectionConfig(config), max: 2 });
  state = ((await client.workflow.getHandle(out.campaignId).result()) as CampaignResult).state;
  const rows = await control.query<{ record: unknown }>('SELECT record FROM episodes WHERE campaign_id = $1', [
    out.campaignId,
  ]);
  records = rows.rows.map((r) => EpisodeRecord.parse(r.record));
});
after(async () => {
  await control?.end();
  await client?.connection.close();
  await server?.kill();
});

test('probe, select, evaluate, train and evaluate ran on the OpenEnv environment through Temporal', () => {
  assert.equal(state.phase, 'done');
  assert.ok(state.pool && state.pool.length > 0 && state.pool.every((t) => t.startsWith('ledger:seed-')));
  assert.equal(out.trainedStep, preset.campaign.steps);
  assert.deepEqual(
    state.evalPoints.map((p) => p.step),
    [0, preset.campaign.steps],
  );
  const { campaign } = preset;
  const expected =
    (campaign.tasks.train.limit ?? 0) * campaign.probing.n +
    campaign.groupsPerStep * campaign.rolloutsPerGroup +
    2 * (campaign.tasks.eval.limit ?? 0) * campaign.evaluation.k;
  assert.ok(records.length >= expected, `${records.length} episodes, at least ${expected} expected`);
  console.log(`openenv-smoke: ${records.length} episodes in ${seconds} s (import, demo, kill and restart)`);
});

test("every episode's reward is the server's own verdict: 0 mis-scored", () => {
  for (const record of records) {
    const verdicts = doneOf(record.outcome.episodeId);
    assert.equal(verdicts.length, 1, `${record.outcome.episodeId}: one attempt reached the terminal step`);
    assert.equal(record.outcome.reward, (verdicts[0]!.reward ?? -1) >= 1 ? 1 : 0, record.outcome.episodeId);
    assert.equal(record.outcome.reward, record.grade.pass ? 1 : 0);
    assert.match(record.grade.assertions[0]!.description, /^OpenEnv reward [01] from http:\/\/127\.0\.0\.1:\d+/);
    assert.match(record.transcript.turns[0]!.content, /^(Please move|What is carol's balance)/, "the reset's message");
    assert.deepEqual(
      record.transcript.tools.map((t) => t.name),
      ['list_accounts', 'get_balance', 'transfer'],
    );
  }
  const rewards = records.map((r) => r.outcome.reward);
  console.log(`openenv-smoke rewards: ${rewards.filter((r) => r === 1).length} of ${rewards.length} episodes 1`);
});

test('the episode under the kill was retried in a fresh session and scored on that one alone', async () => {
  const killed = records.find((r) =>
    held.episode_id.startsWith(`${openEnvEpisodeId(r.outcome.episodeId, undefined)}:a`),
  );
  assert.ok(killed, `the held episode ${held.episode_id} has a record`);
  const episodeId = killed.outcome.episodeId;
  assert.match(episodeId, /\/step-1\//);
  const attempts = server.events.filter(
    (e) => e.event === 'reset' && e.episode_id.startsWith(`${openEnvEpisodeId(episodeId, undefined)}:a`),
  );
  const heldAttempt = Number(held.episode_id.split(':a').at(-1));
  assert.ok(
    attempts.some((e) => Number(e.episode_id.split(':a').at(-1)) > heldAttempt),
    'a later attempt reset a fresh session',
  );
  const [verdict] = doneOf(episodeId);
  assert.notEqual(verdict!.episode_id, held.episode_id, 'the held attempt never reached a terminal step');
  assert.ok(killed.outcome.trajectoryUri && fs.existsSync(localPathOf(killed.outcome.trajectoryUri)), 'its trajectory');
  const row = await control.query<{ reward: number; error: string | null }>(
    'SELECT reward, error FROM campaign_result_rows WHERE episode_id = $1',
    [episodeId],
  );
  assert.deepEqual(row.rows, [{ reward: killed.outcome.reward, error: null }], 'its result row: scored, not lost');

  // Temporal's history of the step: the episode's activity started again after an attempt failed as infrastructure
  const history = await client.workflow.getHandle(`${out.campaignId}/step-1`).fetchHistory();
  const retried = (history.events ?? []).flatMap((e) => {
    const started = e.activityTaskStartedEventAttributes;
    return started && (started.attempt ?? 1) > 1 ? [started.lastFailure?.message ?? ''] : [];
  });
  assert.ok(
    retried.some((m) => /openenv-(lost|unreachable)/.test(m)),
    `a retried runEpisode whose last failure names the OpenEnv outage: ${JSON.stringify(retried)}`,
  );

  console.log(
    `openenv-smoke kill: ${episodeId} held at ${held.episode_id}, scored on ${verdict!.episode_id} (reward ${killed.outcome.reward}); retried activities' last failures: ${retried.map((m) => m.slice(0, 160)).join(' | ')}`,
  );

  // its audit page
  const html = path.join(os.tmpdir(), `openenv-smoke-${process.pid}.html`);
  const show = await runCliAsync(['episode', 'show', episodeId, '--html', html]);
  assert.equal(show.status, 0, show.stderr);
  assert.match(fs.readFileSync(html, 'utf8'), /OpenEnv reward/);
});

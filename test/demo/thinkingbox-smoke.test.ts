import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { loadPreset } from '../../cli/demo/preset.js';
import { connectionConfig } from '../../environment/connection.js';
import type { CampaignState } from '../../schemas/campaign.js';
import { EpisodeRecord } from '../../schemas/episode.js';
import { loadConfig } from '../../workers/config.js';
import { connectClient } from '../../workers/temporal-client.js';
import type { CampaignResult } from '../../workflows/campaign/index.js';
import { thinkingBoxSkip } from '../helpers/thinkingbox.js';
import { runCliAsync } from '../pipeline/cli.js';

// The real `finalstate demo --preset thinkingbox-smoke --fresh --json`: the project's ThinkingBox tasks imported, then
// probe, select, the base evaluation, one GRPO step and the evaluation after it through Temporal, every episode on
// ThinkingBox's session proxy (started by `dev up`) and graded by ThinkingBox's test runner, with the demo's own policy
// server (the smoke's tiny model, built with a 32,768-token context: a ThinkingBox prompt is about 21k of its tokens).
const config = loadConfig();
const skip = thinkingBoxSkip(config);
const { preset } = loadPreset('thinkingbox-smoke');
let out: { campaignId: string; trainedStep: number; poolSize: number; deviations: string[] };
let state: CampaignState;
let client: Client;
let control: pg.Pool;

before(async () => {
  if (skip) return;
  const run = await runCliAsync(['demo', '--preset', 'thinkingbox-smoke', '--fresh', '--json'], 15 * 60_000);
  assert.equal(run.status, 0, `demo exited ${run.status}:\n${run.stderr.slice(-4000)}`);
  out = JSON.parse(run.stdout) as typeof out;
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

test('probe, select, evaluate, train and evaluate ran on ThinkingBox tasks through Temporal', { skip }, () => {
  assert.equal(state.phase, 'done');
  assert.ok(state.probeResultSet && state.poolUri, 'the probe wrote its result set and select froze a pool');
  assert.ok(state.pool && state.pool.length > 0);
  assert.ok(
    state.pool.every((t) => t.startsWith('finalstate_sandbox_external_retail:')),
    state.pool.join(', '),
  );
  assert.equal(state.step, preset.campaign.steps);
  assert.equal(out.trainedStep, preset.campaign.steps);
  assert.deepEqual(
    state.evalPoints.map((p) => p.step),
    [0, preset.campaign.steps],
  );
  // no Typesense here: the result names the deviation
  assert.deepEqual(out.deviations.length, 1);
  assert.match(out.deviations[0]!, /sources left out .* for sandbox_external_retail/);
});

test("every episode was played on ThinkingBox's servers and graded by its test runner", { skip }, async () => {
  const rows = await control.query<{ record: unknown }>('SELECT record FROM episodes WHERE campaign_id = $1', [
    out.campaignId,
  ]);
  const { campaign } = preset;
  const expected =
    (campaign.tasks.train.limit ?? 0) * campaign.probing.n +
    campaign.groupsPerStep * campaign.rolloutsPerGroup +
    2 * (campaign.tasks.eval.limit ?? 0) * campaign.evaluation.k;
  assert.ok(rows.rows.length >= expected, `${rows.rows.length} episodes, at least ${expected} expected`);
  for (const row of rows.rows) {
    const record = EpisodeRecord.parse(row.record);
    assert.match(record.grade.assertions[0]!.description, /^ThinkingBox test finalstate_sandbox_external_retail\.py:/);
    assert.ok(record.transcript.systemParts?.[0]?.includes('<DONE>'), "ThinkingBox's agent template is shown");
    assert.equal(record.outcome.reward, record.grade.pass ? 1 : 0);
  }
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { loadPreset } from '../../cli/demo/preset.js';
import type { ServingCheck } from '../../cli/demo/serving-check.js';
import { localPathOf } from '../../storage/artifacts.js';
import { loadConfig } from '../../workers/config.js';
import { connectionConfig } from '../../environment/connection.js';
import { connectClient } from '../../workers/temporal-client.js';
import type { CampaignState } from '../../schemas/campaign.js';
import type { EpisodeRecord } from '../../schemas/episode.js';
import type { ResultRow } from '../../schemas/results.js';
import { statusOf, type CampaignResult } from '../../workflows/campaign/index.js';
import { freePort } from '../helpers/index.js';
import { runCliAsync } from '../pipeline/cli.js';

// The real `finalstate demo --preset real-smoke` on real parts: vLLM (the CPU build) serves the rollouts token in,
// token out and, through its chat API, the LLM user; the gpu worker runs FSDP2-sharded over 2 gloo ranks under
// torchrun; the step's checkpoint is published into the running vLLM through reload_weights. The checkpoint is the
// smoke preset's tiny base model (built once and cached; smoke.test.ts builds the same) so that the test takes
// minutes; the README runs the same preset on SmolLM2-135M-Instruct. Port and limits are the smoke's. The same vLLM, through
// its chat API with the campaign's tools (hermes tool-call parser), is the reference of an ungated reference probe.

interface DemoOutput {
  campaignId: string;
  phases: { phase: string; seconds: number }[];
  serving?: ServingCheck;
}

describe('finalstate demo --preset real-smoke (vLLM, torchrun, reload_weights)', () => {
  const config = loadConfig();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-real-smoke-'));
  let out: DemoOutput;
  let state: CampaignState;
  let client: Client;
  let control: pg.Pool;

  before(async () => {
    const { preset } = loadPreset('real-smoke');
    const { preset: smoke } = loadPreset('smoke');
    const port = await freePort();
    const file = path.join(workDir, 'real-smoke-test.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        ...preset,
        name: 'real-smoke-test',
        baseModel: smoke.baseModel,
        policyServer: { ...preset.policyServer, port, maxModelLen: 2048 },
        campaign: {
          ...preset.campaign,
          user: { kind: 'llm', endpoint: { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'policy', maxTokens: 16 } },
          referenceProbe: {
            ...preset.campaign.referenceProbe!,
            endpoint: { ...preset.campaign.referenceProbe!.endpoint, baseUrl: `http://127.0.0.1:${port}/v1` },
          },
          limits: smoke.campaign.limits,
        },
      }),
    );
    const run = await runCliAsync(['demo', '--preset', file, '--fresh', '--json'], 20 * 60_000);
    assert.equal(run.status, 0, `demo exited ${run.status}:\n${run.stderr.slice(-4000)}`);
    out = JSON.parse(run.stdout) as DemoOutput;
    client = await connectClient(config);
    control = new pg.Pool({ ...connectionConfig(config), max: 2 });
    state = ((await client.workflow.getHandle(out.campaignId).result()) as CampaignResult).state;
  });
  after(async () => {
    await control?.end();
    await client?.connection.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  test('the step trained on the gpu worker sharded over 2 ranks, and its checkpoint is complete', () => {
    assert.equal(state.phase, 'done');
    assert.equal(state.steps.length, 1);
    assert.ok(state.checkpointUri, 'the step published a checkpoint');
    const dir = localPathOf(state.checkpointUri);
    assert.ok(fs.existsSync(path.join(dir, 'COMPLETE')));
    const shards = fs.readdirSync(path.join(dir, 'sharded')).filter((f) => f.endsWith('.distcp'));
    assert.equal(shards.length, 2, `one shard per rank: ${shards.join(', ')}`);
  });

  // The served log-probs of a fixed greedy completion equal the trainer's of the published export (the tolerance is the
  // serving check's), and differ from the base model's: vLLM serves the new weights, its LM head included (a tied head
  // is repacked on CPU only when the checkpoint names lm_head.weight; docs/policy-stack.md).
  test("vLLM serves the published weights: its log-probs match the trainer's of the export, not the base's", (t) => {
    const serving = out.serving;
    assert.ok(serving, 'the demo ran the serving check');
    t.diagnostic(`served vs published ${serving.publishedDiff}, vs base ${serving.baseDiff} (max |log-prob diff|)`);
    assert.ok(serving.completion.length > 0);
    assert.ok(
      serving.publishedDiff <= serving.tolerance,
      `served vs published: ${serving.publishedDiff} > ${serving.tolerance}`,
    );
    assert.ok(serving.baseDiff > serving.tolerance, `served vs base: ${serving.baseDiff}: the weights did not change`);
    assert.equal(serving.publishedServing, true);
    assert.ok(out.phases.some((p) => p.phase === 'serving check'));
  });

  test('the user was the LLM on the chat API, and its tokens are accounted', async () => {
    const { rows } = await control.query<{ user_tokens: string; episodes: string }>(
      `SELECT count(*) AS episodes,
              sum((row->'usage'->'user'->>'outputTokens')::int) AS user_tokens
         FROM campaign_result_rows WHERE campaign_id = $1`,
      [out.campaignId],
    );
    assert.ok(Number(rows[0]!.episodes) > 0);
    assert.ok(Number(rows[0]!.user_tokens) > 0, `user output tokens: ${rows[0]!.user_tokens}`);
  });

  // The reference probe's real episodes: the candidates' MCP tools and PostgreSQL grading, played by ChatAgentPolicy
  // on vLLM's chat API with the tool schemas. Whatever the tiny model writes (no call, a malformed one, an unknown
  // tool) is its answer: a graded row, never an infrastructure failure.
  test("the reference probe played the candidates on vLLM's chat API with the tools; rows beside the base probe", async (t) => {
    const reference = `${out.campaignId}/probe-reference`;
    assert.equal(state.referenceResultSet, reference);
    const { rows } = await control.query<{ task_id: string; row: ResultRow }>(
      'SELECT task_id, row FROM campaign_result_rows WHERE result_set = $1 ORDER BY task_id',
      [reference],
    );
    const base = await control.query<{ task_id: string }>(
      'SELECT task_id FROM campaign_result_rows WHERE result_set = $1 ORDER BY task_id',
      [`${out.campaignId}/probe`],
    );
    assert.deepEqual(
      rows.map((r) => r.task_id),
      base.rows.map((r) => r.task_id),
      'every candidate once (n 1), as the base probe',
    );
    for (const { task_id, row } of rows) {
      assert.equal(row.error, null, `${task_id}: a task outcome, not an infrastructure failure`);
      assert.ok(row.usage.agent.inputTokens > 0 && row.usage.agent.outputTokens > 0, JSON.stringify(row.usage));
      t.diagnostic(`${task_id}: reward ${row.reward}, agent tokens ${JSON.stringify(row.usage.agent)}`);
    }
    const episodes = await control.query<{ record: EpisodeRecord }>(
      `SELECT e.record FROM episodes e JOIN campaign_result_rows r ON r.episode_id = e.episode_id
        WHERE r.result_set = $1`,
      [reference],
    );
    assert.equal(episodes.rows.length, rows.length);
    for (const { record } of episodes.rows) {
      assert.equal(record.interpretedBy, 'provider', 'the chat API rendered and parsed');
      assert.ok(record.turns.some((turn) => turn.model === 'policy'));
      const said = record.transcript.turns.filter((turn) => turn.role === 'assistant');
      t.diagnostic(
        `${record.outcome.taskId}: ${record.turns.length} agent turns, parse failures ${record.turns.map((turn) => turn.parseFailures).join('+')}, tool calls ${record.toolCalls.map((c) => `${c.tool}${c.isError ? ' (error)' : ''}`).join(', ') || 'none'}; said ${JSON.stringify(said.map((turn) => turn.content.slice(0, 120)))}`,
      );
    }
    const child = await client.workflow.getHandle(reference).describe();
    t.diagnostic(`reference probe: ${(child.closeTime!.getTime() - child.startTime.getTime()) / 1000} s`);
    const status = statusOf(out.campaignId, state, null).solvabilityGate;
    assert.equal(status?.applied, false, 'referenceProbe.gate false: recorded, not gated');
    assert.equal(status?.solved, rows.filter((r) => r.row.reward === 1).length);
    assert.equal(state.pool?.length, base.rows.length, 'the pool is not gated');
    const shown = await runCliAsync(['campaign', 'status', out.campaignId], 60_000);
    assert.match(shown.stdout, /gate +off \(referenceProbe\.gate false\).*candidates solved by the reference: \d+/);
  });
});

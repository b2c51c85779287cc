import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { h100s, REFERENCE_MODELS } from '../../infra/update-memory-table.js';
import { runCliAsync } from './cli.js';
import { startPipeline, task, workflowFailure, type Pipeline } from '../../testkit/pipeline/harness.js';

// The memory preflight of `finalstate campaign start` and of the campaign workflow, on the real Temporal dev server:
// the stand-in gpu worker (test/pipeline/stand-in-gpu-worker.ts) describes 8 80 GB GPUs and Qwen2.5-7B's shape, as
// the real one (python/finalstate/gpu_worker/describe.py, run by test/policy/sharded-worker.test.ts) would there.
let p: Pipeline;

before(async () => {
  p = await startPipeline([task('t-a', 0.5), task('t-b', 0.5), task('e-1', 0.5, 'eval')]);
  p.gpu.described.value = { worker: h100s(8), model: REFERENCE_MODELS['7B'] };
});
after(async () => {
  await p?.close();
});

/** The update settings before micro-batches by tokens: 8 episodes a pass, activation checkpointing off. */
const OLD_DEFAULTS = {
  baseModel: '/nonexistent/base-model',
  microBatchSize: 8,
  microBatchTokens: Number.MAX_SAFE_INTEGER,
  fsdp: { activationCheckpointing: false },
};

test('campaign start refuses the old defaults at 7B with the numbers and the settings to change, and starts nothing', async () => {
  const config = p.campaignConfig({ update: OLD_DEFAULTS });
  const dir = fs.mkdtempSync(`${p.artifacts.root}-preflight-`);
  const file = `${dir}/campaign.json`;
  fs.writeFileSync(file, JSON.stringify(config));
  const refused = await runCliAsync(['campaign', 'start', file, '--skip-base-model-check']);
  assert.equal(refused.status, 2, refused.stdout + refused.stderr);
  assert.match(refused.stderr, new RegExp(`campaign ${config.campaignId}: the policy update will not fit:`));
  assert.match(
    refused.stderr,
    /per GPU: 542\.7 GB of 75\.2 GB usable on a 85\.9 GB GPU \(.*logits 40\.1 GB, activations 476\.3 GB at 65536 tokens a pass\)/,
  );
  assert.match(
    refused.stderr,
    /lower update\.microBatchSize \(8 episodes of up to 8192 tokens: .*\) or set update\.microBatchTokens; or turn on update\.fsdp\.activationCheckpointing/,
  );
  assert.match(refused.stderr, /update memory: qwen2 of 7\.62B parameters on 8 x NVIDIA H100 80GB HBM3/);
  await assert.rejects(p.client.workflow.getHandle(config.campaignId).describe(), WorkflowNotFoundError);

  fs.writeFileSync(file, JSON.stringify(p.campaignConfig({ campaignId: `${config.campaignId}-now` })));
  const now = await runCliAsync(['campaign', 'start', file, '--skip-base-model-check', '--json']);
  assert.equal(now.status, 0, now.stderr);
  const printed = JSON.parse(now.stdout) as { started: boolean; preflight: string[] };
  assert.ok(printed.started);
  assert.match(printed.preflight[1]!, /^ {2}per GPU: 37\.3 GB of 75\.2 GB usable/);
  assert.match(printed.preflight[3]!, /^checkpoints: each step writes 106\.6 GB/);
  await p.client.workflow.getHandle(`${config.campaignId}-now`).terminate('the preflight is all this test needs');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the campaign workflow refuses the old defaults at 7B before it probes, without retrying', async () => {
  const config = p.campaignConfig({ update: OLD_DEFAULTS });
  const handle = await p.startCampaign(config);
  await workflowFailure(handle);
  const preflight = p.client.workflow.getHandle(`${config.campaignId}/preflight`);
  const history = await preflight.fetchHistory();
  const attempts = history.events!.filter((e) => e.activityTaskStartedEventAttributes).length;
  assert.equal(attempts, 1, 'one description, no retry of the refusal');
  const failed = history.events!.find((e) => e.workflowExecutionFailedEventAttributes);
  const failure = failed!.workflowExecutionFailedEventAttributes!.failure!;
  assert.equal(failure.applicationFailureInfo?.type, 'UserError');
  assert.equal(failure.applicationFailureInfo?.nonRetryable, true);
  assert.match(failure.message ?? '', /per GPU: 542\.7 GB of 75\.2 GB usable/);
  await assert.rejects(p.client.workflow.getHandle(`${config.campaignId}/probe`).describe(), WorkflowNotFoundError);
  assert.equal(p.gpu.calls.length, 0, 'no policy update ran');
});

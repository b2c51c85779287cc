import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { h100s, REFERENCE_MODELS, REFERENCE_RUN } from '../../infra/update-memory-table.js';
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
    /per GPU: 502\.5 GB of 75\.2 GB usable on a 85\.9 GB GPU \(.*activations 459\.8 GB and the larger of a layer's backward 16\.4 GB and the log-prob head 1\.5 GB at 65536 tokens a pass on each GPU\)/,
  );
  assert.match(refused.stderr, /it fits with turn on update\.fsdp\.activationCheckpointing \(per GPU 72\.3 GB\)/);
  assert.match(refused.stderr, /update memory: qwen2 of 7\.62B parameters on 8 x NVIDIA H100 80GB HBM3/);
  await assert.rejects(p.client.workflow.getHandle(config.campaignId).describe(), WorkflowNotFoundError);

  fs.writeFileSync(file, JSON.stringify(p.campaignConfig({ campaignId: `${config.campaignId}-now` })));
  const now = await runCliAsync(['campaign', 'start', file, '--skip-base-model-check', '--json']);
  assert.equal(now.status, 0, now.stderr);
  const printed = JSON.parse(now.stdout) as { started: boolean; preflight: string[] };
  assert.ok(printed.started);
  assert.match(printed.preflight[1]!, /^ {2}per GPU: 32\.0 GB of 75\.2 GB usable/);
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
  assert.match(failure.message ?? '', /per GPU: 502\.5 GB of 75\.2 GB usable/);
  await assert.rejects(p.client.workflow.getHandle(`${config.campaignId}/probe`).describe(), WorkflowNotFoundError);
  assert.equal(p.gpu.calls.length, 0, 'no policy update ran');
  // The campaign fails with the whole cause as its message (the UI shows it), which `campaign status` prints.
  const campaignFailure = (await workflowFailure(handle)).cause;
  assert.match(
    campaignFailure?.message ?? '',
    /^workflow updatePreflight .*\/preflight: UserError: [\s\S]*per GPU: 502\.5 GB/,
  );
  const status = await runCliAsync(['campaign', 'status', config.campaignId]);
  assert.equal(status.status, 2);
  assert.match(
    status.stderr,
    new RegExp(
      `campaign ${config.campaignId} failed: workflow updatePreflight ${config.campaignId}/preflight: UserError: [\\s\\S]*per GPU: 502\\.5 GB`,
    ),
  );
});

test("campaign start accepts the reference run's shape and prints its memory term by term; without sequence parallelism it names 4", async () => {
  const described = p.gpu.described.value;
  p.gpu.described.value = { worker: h100s(REFERENCE_RUN.gpus), model: REFERENCE_MODELS[REFERENCE_RUN.model] };
  const dir = fs.mkdtempSync(`${p.artifacts.root}-reference-`);
  const file = `${dir}/campaign.json`;
  const reference = (fsdp: object) =>
    p.campaignConfig({
      limits: { maxContextTokens: REFERENCE_RUN.settings.maxEpisodeTokens },
      update: { baseModel: '/nonexistent/base-model', fsdp },
    });
  try {
    const single = reference({ optimizerOffload: true });
    fs.writeFileSync(file, JSON.stringify(single));
    const refused = await runCliAsync(['campaign', 'start', file, '--skip-base-model-check']);
    assert.equal(refused.status, 2, refused.stdout + refused.stderr);
    assert.match(
      refused.stderr,
      /activations 87\.2 GB and the larger of a layer's backward 79\.1 GB and the log-prob head 3\.3 GB at 133120 tokens a pass on each GPU with activation checkpointing\)/,
    );
    assert.match(refused.stderr, /it fits with set update\.fsdp\.sequenceParallel to 4 \(per GPU 59\.1 GB\)/);

    const config = reference({ optimizerOffload: true, sequenceParallel: 4 });
    fs.writeFileSync(file, JSON.stringify(config));
    const started = await runCliAsync(['campaign', 'start', file, '--skip-base-model-check', '--json']);
    assert.equal(started.status, 0, started.stderr);
    const printed = JSON.parse(started.stdout) as { started: boolean; preflight: string[] };
    assert.ok(printed.started);
    assert.deepEqual(printed.preflight.slice(0, 3), [
      'update memory: qwen3 of 23.37B parameters on 24 x NVIDIA H100 80GB HBM3 (8 per node), 33280 packed tokens a pass on each GPU, sequence parallelism 4, activation checkpointing on',
      "  per GPU: 59.1 GB of 75.2 GB usable (sharded state 0.0 MB, embeddings and output layer 12.4 GB, two layers 3.4 GB, activations 21.8 GB, the larger of a layer's backward 21.4 GB and the log-prob head 1.2 GB)",
      "  per node: 203.4 GB of host memory (8 ranks x 4.0 GB, offloaded state 124.6 GB, the export gathered on rank 0's node 46.7 GB)",
    ]);
    await p.client.workflow.getHandle(config.campaignId).terminate('the preflight is all this test needs');
  } finally {
    p.gpu.described.value = described;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

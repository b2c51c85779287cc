import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import {
  checkpointBytes,
  describeCheckpoints,
  describeUpdateMemory,
  planUpdateMemory,
  loraParameters,
  RESUMABLE_BYTES_PER_PARAMETER,
} from '../../infra/update-memory.js';
import {
  checkpointTable,
  DEFAULT_SETTINGS,
  h100s,
  memoryTable,
  ALL_LINEAR,
  LORA_MODELS,
  loraTable,
  OLD_DEFAULT_SETTINGS,
  REFERENCE_MODELS,
} from '../../infra/update-memory-table.js';
import { CheckpointRetention } from '../../schemas/training.js';
import { ClusterPreset } from '../../schemas/deploy.js';

const deployDoc = fs.readFileSync(fromRoot('docs', 'deploy.md'), 'utf8');
const GB = 1e9;

test('the example cluster preset of docs/deploy.md matches the ClusterPreset schema', () => {
  assert.ok(deployDoc.includes('docs/examples/cluster.json'));
  const preset = ClusterPreset.parse(JSON.parse(fs.readFileSync(fromRoot('docs', 'examples', 'cluster.json'), 'utf8')));
  assert.equal(preset.campaign.policyServers?.length, preset.rolloutServers.count);
  // The doc's torchrun command is the preset's shape.
  assert.ok(
    deployDoc.includes(`--nnodes ${preset.gpuWorker.nnodes} --nproc-per-node ${preset.gpuWorker.nprocPerNode}`),
  );
  assert.ok(deployDoc.includes(`--rdzv-endpoint ${preset.gpuWorker.rdzvEndpoint}`));
});

test('the schema says where a cluster preset is inconsistent', () => {
  const preset = JSON.parse(fs.readFileSync(fromRoot('docs', 'examples', 'cluster.json'), 'utf8')) as {
    campaign: { policyServers: unknown[]; update: { checkpointDir: string } };
  };
  preset.campaign.policyServers.pop();
  preset.campaign.update.checkpointDir = '/local/checkpoints';
  const result = ClusterPreset.safeParse(preset);
  assert.equal(result.success, false);
  const paths = result.error!.issues.map((i) => i.path.join('.'));
  assert.deepEqual(paths.sort(), ['campaign.policyServers', 'campaign.update.checkpointDir']);
});

test("the memory tables of docs/deploy.md are the update's arithmetic", () => {
  // Regenerate with `node dist/infra/update-memory-table.js` after changing infra/update-memory.ts.
  assert.ok(deployDoc.includes(memoryTable()), `docs/deploy.md lacks the memory table:\n${memoryTable()}`);
  assert.ok(deployDoc.includes(checkpointTable()), `docs/deploy.md lacks the checkpoint table:\n${checkpointTable()}`);
  assert.ok(deployDoc.includes(loraTable()), `docs/deploy.md lacks the LoRA table:\n${loraTable()}`);
});

test('the reference shapes have the published parameter counts', () => {
  const billions = Object.fromEntries(
    Object.entries(REFERENCE_MODELS).map(([name, m]) => [name, Number((m.parameters / 1e9).toFixed(2))]),
  );
  assert.deepEqual(billions, { '1.5B': 1.54, '7B': 7.62, '14B': 14.77, '32B': 32.76 });
  assert.equal(REFERENCE_MODELS['7B'].embeddingParameters, 2 * 152064 * 3584);
});

test('the preflight refuses the old defaults at 7B with the numbers and the settings to change, and takes the new ones', () => {
  const model = REFERENCE_MODELS['7B'];
  const old = planUpdateMemory(model, h100s(8), OLD_DEFAULT_SETTINGS);
  assert.equal(old.problems.length, 1);
  const [problem] = old.problems;
  assert.equal(old.passTokens, 8 * 8192);
  assert.match(problem!, /^per GPU: \d+\.\d GB of 75\.2 GB usable on a 85\.9 GB GPU/);
  assert.match(problem!, /logits 40\.1 GB/);
  assert.match(problem!, /turn on update\.fsdp\.activationCheckpointing/);
  assert.match(problem!, /lower update\.microBatchSize \(8 episodes of up to 8192 tokens/);
  assert.ok(old.perGpu.total > 300 * GB, `${old.perGpu.total}`);

  const now = planUpdateMemory(model, h100s(8), DEFAULT_SETTINGS);
  assert.deepEqual(now.problems, []);
  assert.equal(now.checkpointing, true);
  // Two GPUs hold neither the state nor the rest: the refusal names the GPU count that fits.
  assert.match(planUpdateMemory(model, h100s(2), DEFAULT_SETTINGS).problems[0]!, /train on 4 GPUs or more/);
  // The logits of one 8k pass are the bf16 logits and their gradient (4 bytes a cell) plus 256 MiB of scratch.
  assert.equal(now.perGpu.logits, 4 * 8192 * 152064 + 4 * 64 * 2 ** 20);
});

test('checkpoints: 7B writes about 107 GB a step; retention keeps two whole steps and the needed exports', () => {
  const parameters = REFERENCE_MODELS['7B'].parameters;
  const retention = CheckpointRetention.parse({});
  const bytes = checkpointBytes(parameters, 2, retention, 100, 5);
  assert.equal(bytes.perStep, (RESUMABLE_BYTES_PER_PARAMETER + 2) * parameters);
  assert.ok(Math.abs(bytes.perStep / GB - 106.6) < 0.1);
  assert.equal(bytes.unretained, 100 * bytes.perStep);
  // Steps 99 and 100 whole; the exports of the 19 other evaluated steps (every 5th).
  assert.equal(bytes.retained, 2 * bytes.perStep + 19 * bytes.export);
  assert.match(
    describeCheckpoints(bytes, retention, 100),
    /each step writes 106\.6 GB .* 10661\.9 GB keeping everything/,
  );
  const servedOnly = checkpointBytes(parameters, 2, { keepLast: 1, keepExports: 'needed', exportEvery: null }, 7, 5);
  // Step 7 whole, the served step 6's export and the evaluated step 5's.
  assert.equal(servedOnly.retained, servedOnly.perStep + 2 * servedOnly.export);

  // checkpoints.every 10: every step writes its export, every tenth its resumable state too. After step 99 the
  // resumable state of step 90 and steps 91-99 stay for a replay, beside the evaluated steps' exports before 90.
  const cadence = checkpointBytes(parameters, 2, retention, 99, 5, 10);
  assert.equal(cadence.averagePerStep, bytes.export + bytes.resumable / 10);
  assert.equal(cadence.retained, bytes.resumable + 10 * bytes.export + 17 * bytes.export);
  assert.equal(cadence.unretained, 9 * bytes.resumable + 99 * bytes.export);
  assert.match(
    describeCheckpoints(cadence, retention, 99, 10),
    /each step writes its export \(15\.2 GB\) and every 10th its resumable state too \(91\.4 GB\): 24\.4 GB a step/,
  );
});

test('campaign start prints per GPU and per node what the update holds, in MB for a test model', () => {
  const model = REFERENCE_MODELS['7B'];
  const plan = planUpdateMemory(model, h100s(8), DEFAULT_SETTINGS);
  assert.deepEqual(describeUpdateMemory(plan, model, h100s(8)), [
    'update memory: qwen2 of 7.62B parameters on 8 x NVIDIA H100 80GB HBM3 (8 per node), 8192 tokens a pass, activation checkpointing on',
    '  per GPU: 37.3 GB of 75.2 GB usable (sharded state 15.2 GB, embeddings and output layer 8.7 GB, two layers 2.3 GB, logits 5.3 GB, activations 5.7 GB)',
    "  per node: 47.2 GB of host memory (8 ranks x 4.0 GB, no offloaded state, the export gathered on rank 0's node 15.2 GB)",
  ]);
  const offloaded = planUpdateMemory(model, h100s(8), { ...DEFAULT_SETTINGS, optimizerOffload: true });
  assert.match(describeUpdateMemory(offloaded, model, h100s(8))[2]!, /offloaded state 121\.8 GB/);

  // The tiny test model on one CPU rank (test/pipeline/stand-in-gpu-worker.ts): no GPU limit, figures in MB.
  const tiny = { ...REFERENCE_MODELS['1.5B'], parameters: 93_312, embeddingParameters: 19_200, layers: 2, hidden: 64 };
  const rank = { ...h100s(1), device: 'cpu' as const, deviceName: 'cpu', gpuMemoryBytes: null };
  const lines = describeUpdateMemory(planUpdateMemory(tiny, rank, DEFAULT_SETTINGS), tiny, rank);
  assert.match(lines[0]!, /^update memory: qwen2 of 93\.3K parameters on 1 CPU rank \(1 per node\)/);
  assert.match(lines[1]!, /^ {2}per rank: \d+\.\d GB \(sharded state 1\.5 MB, embeddings and output layer \d+\.\d MB,/);
  assert.match(lines[2]!, /^ {2}per node: \d+\.\d GB of host memory \(1 rank x 4\.0 GB, no offloaded state,/);
  const retention = CheckpointRetention.parse({ keepLast: 1 });
  assert.match(
    describeCheckpoints(checkpointBytes(tiny.parameters, 4, retention, 3, 5), retention, 3),
    /^checkpoints: each step writes 1\.5 MB \(resumable state 1\.1 MB, export 0\.4 MB\); .* keeping the last 1 step whole/,
  );
});

test("LoRA's arithmetic: PEFT's adapter count, a frozen bf16 base, the adapter's state and checkpoints", () => {
  const model = LORA_MODELS['8B'];
  const lora = { rank: 16, targetModules: ALL_LINEAR };
  // PEFT's trainable parameters for Qwen3-8B, r 16 on all seven linear layers: 36 x 16 x (8192 + 5120 x 2 + 8192 + 16384 x 3).
  assert.equal(loraParameters(model, lora), 43_646_976);
  assert.equal(loraParameters(model, { rank: 16, targetModules: ['q_proj', 'c_attn'] }), 36 * 16 * 8192);
  const full = planUpdateMemory(model, h100s(4), DEFAULT_SETTINGS).perGpu;
  const adapted = planUpdateMemory(model, h100s(4), { ...DEFAULT_SETTINGS, lora }).perGpu;
  assert.equal(adapted.shardedState, (16 * 43_646_976 + 2 * model.parameters) / 4);
  assert.equal(adapted.rootParameters, full.rootParameters / 4, 'the bf16 copy of the root (2 of 2 + 2 + 4 bytes)');
  assert.equal(adapted.logits, full.logits);
  assert.equal(adapted.activations, full.activations);
  const plan = planUpdateMemory(model, h100s(1), { ...DEFAULT_SETTINGS, lora });
  assert.equal(plan.perNode.export, 2 * 43_646_976, 'rank 0 gathers the adapter only');
  assert.deepEqual(plan.problems, []);
  assert.ok(
    planUpdateMemory(model, h100s(1), DEFAULT_SETTINGS).problems.length > 0,
    'full fine-tuning needs more GPUs',
  );
});

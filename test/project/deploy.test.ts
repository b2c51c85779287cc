import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import {
  checkpointBytes,
  describeCheckpoints,
  describeUpdateMemory,
  fixesFor,
  planUpdateMemory,
  loraParameters,
  RESUMABLE_BYTES_PER_PARAMETER,
} from '../../infra/update-memory.js';
import {
  checkpointTable,
  DEFAULT_SETTINGS,
  h100s,
  LONG_ROWS,
  longEpisodeTable,
  longRowPlan,
  memoryTable,
  ALL_LINEAR,
  LORA_MODELS,
  loraTable,
  OLD_DEFAULT_SETTINGS,
  REFERENCE_MODELS,
  REFERENCE_RUN,
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
  assert.ok(
    deployDoc.includes(longEpisodeTable()),
    `docs/deploy.md lacks the long-episode table:\n${longEpisodeTable()}`,
  );
  assert.ok(deployDoc.includes(checkpointTable()), `docs/deploy.md lacks the checkpoint table:\n${checkpointTable()}`);
  assert.ok(deployDoc.includes(loraTable()), `docs/deploy.md lacks the LoRA table:\n${loraTable()}`);
});

test('the reference shapes have the published parameter counts', () => {
  const billions = Object.fromEntries(
    Object.entries(REFERENCE_MODELS).map(([name, m]) => [name, Number((m.parameters / 1e9).toFixed(2))]),
  );
  assert.deepEqual(billions, { '1.5B': 1.54, '7B': 7.62, '14B': 14.77, '32B': 32.76, '8B': 8.19, '27B': 23.37 });
  assert.equal(REFERENCE_MODELS['7B'].embeddingParameters, 2 * 152064 * 3584);
});

test('the preflight refuses the old defaults at 7B with the numbers and the settings to change, and takes the new ones', () => {
  const model = REFERENCE_MODELS['7B'];
  const old = planUpdateMemory(model, h100s(8), OLD_DEFAULT_SETTINGS);
  assert.equal(old.problems.length, 1);
  const [problem] = old.problems;
  assert.equal(old.passTokens, 8 * 8192);
  assert.match(problem!, /^per GPU: 502\.5 GB of 75\.2 GB usable on a 85\.9 GB GPU/);
  assert.match(
    problem!,
    /activations 459\.8 GB and the larger of a layer's backward 16\.4 GB and the log-prob head 1\.5 GB at 65536 tokens a pass on each GPU\)/,
  );
  // Each fix is computed: the per-GPU bytes it leads to fit.
  assert.match(problem!, /it fits with turn on update\.fsdp\.activationCheckpointing \(per GPU 72\.3 GB\)/);
  assert.ok(old.perGpu.total > 300 * GB, `${old.perGpu.total}`);

  const now = planUpdateMemory(model, h100s(8), DEFAULT_SETTINGS);
  assert.deepEqual(now.problems, []);
  assert.equal(now.checkpointing, true);
  // Two GPUs hold neither the state nor the rest: the refusal names the GPU count that fits.
  assert.match(
    planUpdateMemory(model, h100s(2), DEFAULT_SETTINGS).problems[0]!,
    /it fits with turn on update\.fsdp\.optimizerOffload \(per GPU 16\.8 GB\); or train on 4 GPUs or more$/,
  );
  // The log-prob head of one 8k pass keeps no logits: the bf16 hidden states and their gradient (4 bytes a hidden
  // unit), 12 fp32 bytes a token, and two chunks of 441 fp32 rows (256 MiB at most each). The logits and their
  // gradient would be 4 x 8192 x 152064 = 5.0 GB.
  assert.equal(now.perGpu.head, 8192 * (4 * 3584 + 12) + 2 * 441 * 4 * 152064);
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
    'update memory: qwen2 of 7.62B parameters on 8 x NVIDIA H100 80GB HBM3 (8 per node), 8192 packed tokens a pass on each GPU, activation checkpointing on',
    "  per GPU: 32.0 GB of 75.2 GB usable (sharded state 15.2 GB, embeddings and output layer 8.7 GB, two layers 2.3 GB, activations 1.6 GB, the larger of a layer's backward 4.1 GB and the log-prob head 0.7 GB)",
    "  per node: 47.2 GB of host memory (8 ranks x 4.0 GB, no offloaded state, the export gathered on rank 0's node 15.2 GB)",
  ]);
  const offloaded = planUpdateMemory(model, h100s(8), { ...DEFAULT_SETTINGS, optimizerOffload: true });
  assert.match(describeUpdateMemory(offloaded, model, h100s(8))[2]!, /offloaded state 121\.8 GB/);

  // The tiny test model on one CPU rank (test/pipeline/stand-in-gpu-worker.ts): no GPU limit, figures in MB.
  const tiny = { ...REFERENCE_MODELS['1.5B'], parameters: 93_312, embeddingParameters: 19_200, layers: 2, hidden: 64 };
  const rank = { ...h100s(1), device: 'cpu' as const, deviceName: 'cpu', gpuMemoryBytes: null };
  const lines = describeUpdateMemory(planUpdateMemory(tiny, rank, DEFAULT_SETTINGS), tiny, rank);
  assert.match(
    lines[0]!,
    /^update memory: qwen2 of 93\.3K parameters on 1 CPU rank \(1 per node\), 8192 packed tokens a pass on each rank/,
  );
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
  assert.equal(adapted.head, full.head);
  assert.equal(adapted.activations, full.activations);
  const plan = planUpdateMemory(model, h100s(1), { ...DEFAULT_SETTINGS, lora });
  assert.equal(plan.perNode.export, 2 * 43_646_976, 'rank 0 gathers the adapter only');
  assert.deepEqual(plan.problems, []);
  assert.ok(
    planUpdateMemory(model, h100s(1), DEFAULT_SETTINGS).problems.length > 0,
    'full fine-tuning needs more GPUs',
  );
});

test("the reference run's shape fits: a 27B-class model, 26,624 + 106,496 tokens, 3 x 8 H100s, sequence parallelism 4, offload", () => {
  const model = REFERENCE_MODELS[REFERENCE_RUN.model];
  const worker = h100s(REFERENCE_RUN.gpus);
  const plan = planUpdateMemory(model, worker, REFERENCE_RUN.settings);
  assert.deepEqual(plan.problems, []);
  // One 133,120-token episode a pass, its tokens split four ways.
  assert.equal(plan.passTokens, 133_120 / 4);
  assert.deepEqual(describeUpdateMemory(plan, model, worker), [
    'update memory: qwen3 of 23.37B parameters on 24 x NVIDIA H100 80GB HBM3 (8 per node), 33280 packed tokens a pass on each GPU, sequence parallelism 4, activation checkpointing on',
    "  per GPU: 59.1 GB of 75.2 GB usable (sharded state 0.0 MB, embeddings and output layer 12.4 GB, two layers 3.4 GB, activations 21.8 GB, the larger of a layer's backward 21.4 GB and the log-prob head 1.2 GB)",
    "  per node: 203.4 GB of host memory (8 ranks x 4.0 GB, offloaded state 124.6 GB, the export gathered on rank 0's node 46.7 GB)",
  ]);
  // Qwen3.5-27B's own 27.8B parameters (more per layer) still fit.
  const published = { ...model, parameters: 27.8e9 };
  assert.deepEqual(planUpdateMemory(published, worker, REFERENCE_RUN.settings).problems, []);
  // HSDP keeps a replica per node: the offloaded state of a whole model on each node, still within 1 TiB.
  const hsdp = planUpdateMemory(model, worker, { ...REFERENCE_RUN.settings, replicateAcrossNodes: true });
  assert.deepEqual(hsdp.problems, []);
  assert.equal(hsdp.perNode.offloadedState, 16 * model.parameters);
});

test('a shape that does not fit names the smallest change that does, with the bytes it leads to', () => {
  const model = REFERENCE_MODELS['27B'];
  const worker = h100s(24);
  // Without sequence parallelism one 133k-token episode is 166 GB of activations: four ranks a pass fit, two do not.
  assert.deepEqual(fixesFor(model, worker, { ...REFERENCE_RUN.settings, sequenceParallel: 1 }), [
    'set update.fsdp.sequenceParallel to 4 (per GPU 59.1 GB)',
    'lower limits.maxContextTokens to 47104 (per GPU 74.7 GB)',
  ]);
  assert.ok(
    fixesFor(model, worker, { ...REFERENCE_RUN.settings, sequenceParallel: 2 })[0]!.startsWith(
      'set update.fsdp.sequenceParallel to 4',
    ),
  );
  // Without offload: offload, or more sequence parallelism, or more GPUs.
  assert.deepEqual(fixesFor(model, worker, { ...REFERENCE_RUN.settings, optimizerOffload: false }), [
    'set update.fsdp.sequenceParallel to 8 (per GPU 55.9 GB)',
    'turn on update.fsdp.optimizerOffload (per GPU 59.1 GB)',
    'lower limits.maxContextTokens to 132096 (per GPU 74.3 GB)',
    'train on 32 GPUs or more',
  ]);
  // 32B on one node at 128k tokens: its state alone overflows (no shorter limit or more GPUs helps the activations),
  // and so do its activations: no single change is enough, the fewest together are named.
  const far = { ...REFERENCE_RUN.settings, sequenceParallel: 1, optimizerOffload: false, maxEpisodeTokens: 131_072 };
  assert.deepEqual(fixesFor(REFERENCE_MODELS['32B'], h100s(8), far), [
    'set update.fsdp.sequenceParallel to 4 and turn on update.fsdp.optimizerOffload (per GPU 64.2 GB)',
  ]);
  // A sequence-parallel size the node or the heads cannot take is refused by name.
  assert.match(
    planUpdateMemory(model, worker, { ...REFERENCE_RUN.settings, sequenceParallel: 3 }).problems[0]!,
    /^update\.fsdp\.sequenceParallel 3 must divide the 8 ranks of a node/,
  );
  assert.match(
    planUpdateMemory(REFERENCE_MODELS['1.5B'], worker, { ...REFERENCE_RUN.settings, sequenceParallel: 8 }).problems[0]!,
    /^update\.fsdp\.sequenceParallel 8 must divide the model's 12 attention heads/,
  );
});

test('the long-episode rows: 8B and 32B at 32k and 128k tokens, and the reference run', () => {
  const rows = LONG_ROWS.map((row) => ({ ...row, fits: longRowPlan(row).problems.length === 0 }));
  for (const model of ['8B', '32B'] as const)
    for (const tokens of [32_768, 131_072])
      assert.ok(
        rows.some((r) => r.model === model && r.tokens === tokens && r.fits),
        `${model} at ${tokens} tokens has a row that fits`,
      );
  assert.ok(rows.some((r) => r.model === '27B' && r.tokens === 133_120 && r.sequenceParallel === 4 && r.fits));
});

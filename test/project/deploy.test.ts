import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { gatheredLayerBytes, logitBytes, shardedStateBytesPerGpu } from '../../infra/update-memory.js';
import { ClusterPreset } from '../../schemas/deploy.js';

const deployDoc = fs.readFileSync(fromRoot('docs', 'deploy.md'), 'utf8');
const GB = 1e9;

test('the example cluster preset of docs/deploy.md matches the ClusterPreset schema', () => {
  assert.ok(deployDoc.includes('docs/examples/cluster.json'));
  const preset = ClusterPreset.parse(JSON.parse(fs.readFileSync(fromRoot('docs', 'examples', 'cluster.json'), 'utf8')));
  assert.equal(preset.campaign.policyServers.length, preset.rolloutServers.count);
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

test("the memory table of docs/deploy.md is the update's arithmetic", () => {
  const rows = [...deployDoc.matchAll(/^\| (\d+)B \| (\d+) \| ([\d.]+) GB \|/gm)];
  assert.ok(rows.length >= 6, 'the table has rows');
  for (const [, billions, gpus, perGpu] of rows) {
    const expected = shardedStateBytesPerGpu(Number(billions) * 1e9, Number(gpus)) / GB;
    assert.ok(
      Math.abs(expected - Number(perGpu)) < 0.05,
      `${billions}B on ${gpus} GPUs: the doc says ${perGpu} GB, the arithmetic ${expected.toFixed(1)} GB`,
    );
  }
  assert.equal(shardedStateBytesPerGpu(27e9, 16, { optimizerOffload: true }), 0);
  assert.equal(gatheredLayerBytes(1e9), 8e9);
  assert.equal(logitBytes(4096, 151936), 12 * 4096 * 151936);
});

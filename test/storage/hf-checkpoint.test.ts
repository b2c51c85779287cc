import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { checkHfCheckpoint, IncompleteCheckpointError } from '../../storage/hf-checkpoint.js';
import { buildTinyModel } from '../helpers/vllm.js';

// The completeness check the publisher runs before any server reloads (a vLLM reload of a directory it cannot read
// leaves it without weights), on a real checkpoint written by transformers and on damaged copies of it.
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-hf-checkpoint-'));
let model: string;

before(() => {
  model = buildTinyModel(path.join(workDir, 'model'));
});
after(() => fs.rmSync(workDir, { recursive: true, force: true }));

/** A copy of the tiny model, damaged by `damage`. */
function copy(name: string, damage: (dir: string) => void = () => undefined): string {
  const dir = path.join(workDir, name);
  fs.cpSync(model, dir, { recursive: true });
  damage(dir);
  return dir;
}

const incomplete = (pattern: RegExp) => (err: unknown) =>
  err instanceof IncompleteCheckpointError && pattern.test(err.message);

test('a checkpoint written by transformers is complete, alone and against itself', async () => {
  const summary = await checkHfCheckpoint(model, model);
  assert.deepEqual(summary.files, ['model.safetensors']);
  assert.ok(summary.tensors > 5);
  assert.equal(summary.bytes, fs.statSync(path.join(model, 'model.safetensors')).size);
});

test('a missing or empty directory, or one without weights or config, is refused', async () => {
  await assert.rejects(checkHfCheckpoint(path.join(workDir, 'absent')), incomplete(/no such directory/));
  const empty = path.join(workDir, 'empty');
  fs.mkdirSync(empty);
  await assert.rejects(checkHfCheckpoint(empty), incomplete(/cannot read config\.json \(ENOENT\)/));
  const noWeights = copy('no-weights', (dir) => fs.rmSync(path.join(dir, 'model.safetensors')));
  await assert.rejects(checkHfCheckpoint(noWeights), incomplete(/no \*\.safetensors file/));
  const badConfig = copy('bad-config', (dir) => fs.writeFileSync(path.join(dir, 'config.json'), '{"model_type": '));
  await assert.rejects(checkHfCheckpoint(badConfig), incomplete(/config\.json is not valid JSON/));
});

test('a truncated or padded safetensors file is refused, naming the sizes', async () => {
  const file = (dir: string) => path.join(dir, 'model.safetensors');
  const truncated = copy('truncated', (dir) => fs.truncateSync(file(dir), fs.statSync(file(dir)).size - 100));
  await assert.rejects(
    checkHfCheckpoint(truncated),
    incomplete(/model\.safetensors has \d+ bytes but its header covers \d+ \(truncated\)/),
  );
  const headerOnly = copy('header-cut', (dir) => fs.truncateSync(file(dir), 20));
  await assert.rejects(
    checkHfCheckpoint(headerOnly),
    incomplete(/declares a \d+-byte header but the file has 20 bytes/),
  );
  const padded = copy('padded', (dir) => fs.appendFileSync(file(dir), Buffer.alloc(8)));
  await assert.rejects(checkHfCheckpoint(padded), incomplete(/\(trailing bytes\)/));
});

test('a sharded checkpoint needs every shard its index names, each holding the tensors assigned to it', async () => {
  const index = (weightMap: Record<string, string>) => JSON.stringify({ metadata: {}, weight_map: weightMap });
  const names = async () => {
    const bytes = fs.readFileSync(path.join(model, 'model.safetensors'));
    const header = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString('utf8')) as object;
    return Object.keys(header).filter((k) => k !== '__metadata__');
  };
  const tensors = await names();
  const sharded = copy('sharded', (dir) => {
    fs.renameSync(path.join(dir, 'model.safetensors'), path.join(dir, 'model-00001-of-00001.safetensors'));
    fs.writeFileSync(
      path.join(dir, 'model.safetensors.index.json'),
      index(Object.fromEntries(tensors.map((t) => [t, 'model-00001-of-00001.safetensors']))),
    );
  });
  assert.deepEqual((await checkHfCheckpoint(sharded, model)).files, ['model-00001-of-00001.safetensors']);
  const missingShard = copy('missing-shard', (dir) => {
    fs.cpSync(path.join(sharded, 'model.safetensors.index.json'), path.join(dir, 'model.safetensors.index.json'));
    const map = Object.fromEntries(tensors.map((t, i) => [t, `model-0000${1 + (i % 2)}-of-00002.safetensors`]));
    fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), index(map));
    fs.renameSync(path.join(dir, 'model.safetensors'), path.join(dir, 'model-00001-of-00002.safetensors'));
  });
  await assert.rejects(
    checkHfCheckpoint(missingShard),
    incomplete(/names 1 shard\(s\) that are not there: model-00002-of-00002\.safetensors/),
  );
  const wrongShard = copy('wrong-shard', (dir) => {
    fs.renameSync(path.join(dir, 'model.safetensors'), path.join(dir, 'model-00001-of-00001.safetensors'));
    fs.writeFileSync(
      path.join(dir, 'model.safetensors.index.json'),
      index({
        ...Object.fromEntries(tensors.map((t) => [t, 'model-00001-of-00001.safetensors'])),
        'lm_head.bias': 'model-00001-of-00001.safetensors',
      }),
    );
  });
  await assert.rejects(
    checkHfCheckpoint(wrongShard),
    incomplete(/lacks 1 tensor\(s\) the index assigns to it, e\.g\. lm_head\.bias/),
  );
});

test("a checkpoint of another model (other tensor names or shapes) is refused against the served one's", async () => {
  const sameShapes = copy('same-shapes', (dir) => {
    const file = path.join(dir, 'model.safetensors');
    const bytes = fs.readFileSync(file);
    bytes.fill(0, bytes.length - 64); // other values, same tensors
    fs.writeFileSync(file, bytes);
  });
  await checkHfCheckpoint(sameShapes, model);
  const config = JSON.parse(fs.readFileSync(path.join(model, 'config.json'), 'utf8')) as Record<string, unknown>;
  const wider = path.join(workDir, 'wider');
  fs.mkdirSync(wider);
  // A safetensors file of one tensor named like one of the model's, with another shape.
  const header = Buffer.from(
    JSON.stringify({ 'model.norm.weight': { dtype: 'F32', shape: [128], data_offsets: [0, 512] } }),
  );
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(header.length));
  fs.writeFileSync(path.join(wider, 'model.safetensors'), Buffer.concat([prefix, header, Buffer.alloc(512)]));
  fs.writeFileSync(path.join(wider, 'config.json'), JSON.stringify(config));
  await checkHfCheckpoint(wider);
  await assert.rejects(
    checkHfCheckpoint(wider, model),
    incomplete(
      /does not have the tensors of .* differences: .*model\.norm\.weight has shape \[128\], not \[64\]|missing/,
    ),
  );
});

test('a tied model with lm_head.weight named (the export) and one without it (save_pretrained) are the same model', async () => {
  // The model's safetensors file again, with a copy of the input embeddings under lm_head.weight appended.
  const withHead = copy('with-head', (dir) => {
    const file = path.join(dir, 'model.safetensors');
    const bytes = fs.readFileSync(file);
    const length = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + length).toString('utf8')) as Record<
      string,
      { dtype: string; shape: number[]; data_offsets: [number, number] }
    >;
    const data = bytes.subarray(8 + length);
    const embed = header['model.embed_tokens.weight']!;
    assert.equal(header['lm_head.weight'], undefined, 'transformers leaves the tied head out');
    header['lm_head.weight'] = {
      ...embed,
      data_offsets: [data.length, data.length + embed.data_offsets[1] - embed.data_offsets[0]],
    };
    const newHeader = Buffer.from(JSON.stringify(header));
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64LE(BigInt(newHeader.length));
    fs.writeFileSync(file, Buffer.concat([prefix, newHeader, data, data.subarray(...embed.data_offsets)]));
  });
  await checkHfCheckpoint(withHead, model);
  await checkHfCheckpoint(model, withHead);
  // Untied, the head is a weight of its own: a checkpoint without it is another model.
  const untie = (dir: string) => {
    const file = path.join(dir, 'config.json');
    const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...config, tie_word_embeddings: false }));
  };
  const untiedHead = copy('untied-head', (dir) => {
    fs.cpSync(path.join(withHead, 'model.safetensors'), path.join(dir, 'model.safetensors'));
    untie(dir);
  });
  const untied = copy('untied', untie);
  await assert.rejects(checkHfCheckpoint(untiedHead, untied), incomplete(/lm_head\.weight extra/));
  await assert.rejects(checkHfCheckpoint(untied, untiedHead), incomplete(/lm_head\.weight missing/));
});

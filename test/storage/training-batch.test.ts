import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { readTrainingBatch, TrainingBatchWriter, writeTrainingBatch } from '../../storage/training-batch.js';
import { loadConfig } from '../../workers/config.js';

// A training batch is a manifest and four .npy arrays (schemas/training.ts TrainingBatch), written here episode by
// episode and read by the real Python trainer's loader (python/finalstate/grpo/batch.py load_batch), memory-mapped.
// A batch written before the versions array existed still loads on both sides.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-batch-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const python = fromRoot(loadConfig().python.venv, 'bin', 'python');

function episode(i: number, tokens: number) {
  return {
    episodeId: `ep-${i}`,
    taskId: `task-${i >> 3}`,
    groupId: `group-${i >> 3}`,
    tokenIds: Array.from({ length: tokens }, (_, k) => (i * 7919 + k * 31) % 151_000),
    lossMask: Array.from({ length: tokens }, (_, k) => (k >= 64 && k % 5 !== 0 ? 1 : 0)),
    rolloutLogprobs: Array.from({ length: tokens }, (_, k) =>
      k >= 64 && k % 5 !== 0 ? -((k * 7 + i) % 9973) / 997.3 : 0,
    ),
    // Tokens after the prompt sampled by versions 3 and 4 (a turn on each side of a publish), the rest by none.
    rolloutVersions: Array.from({ length: tokens }, (_, k) => (k < 64 ? -1 : k < tokens / 2 ? 3 : 4)),
    reward: i % 2,
  };
}

/** Runs load_batch on the manifest in the project's Python venv and returns what it printed (one JSON line). */
function loadInPython(manifest: string, script: string) {
  const run = spawnSync(
    python,
    [
      '-c',
      [
        'import json, resource, sys',
        'import numpy as np',
        'from finalstate.grpo.batch import load_batch, loss_tokens',
        'episodes = load_batch(sys.argv[1])',
        script,
      ].join('\n'),
      manifest,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

test('a batch round-trips: TypeScript writes it, the TypeScript reader and the Python trainer read the same columns', async () => {
  const episodes = [episode(0, 70), episode(1, 90), episode(2, 66)];
  const manifest = await writeTrainingBatch(dir, 'small', episodes);
  const { manifest: read, episodes: back } = await readTrainingBatch(manifest);
  assert.equal(read.tokens, 70 + 90 + 66);
  assert.deepEqual(
    back.map((e) => [e.episodeId, e.offset, e.length, e.reward]),
    [
      ['ep-0', 0, 70, 0],
      ['ep-1', 70, 90, 1],
      ['ep-2', 160, 66, 0],
    ],
  );
  for (const [i, e] of back.entries()) {
    assert.deepEqual([...e.tokenIds], episodes[i]!.tokenIds);
    assert.deepEqual([...e.lossMask], episodes[i]!.lossMask);
    assert.deepEqual([...e.rolloutLogprobs], episodes[i]!.rolloutLogprobs.map(Math.fround), 'float32, as trained');
    assert.deepEqual([...e.rolloutVersions!], episodes[i]!.rolloutVersions);
  }
  const columns = ['tokenIds', 'lossMask', 'rolloutLogprobs', 'rolloutVersions'];
  const fromPython = loadInPython(
    manifest,
    `print(json.dumps([[e["episodeId"], *(e[c].tolist() for c in ${JSON.stringify(columns)})] for e in episodes]))`,
  ) as unknown as Array<[string, number[], number[], number[], number[]]>;
  assert.deepEqual(
    fromPython,
    episodes.map((e) => [e.episodeId, e.tokenIds, e.lossMask, e.rolloutLogprobs.map(Math.fround), e.rolloutVersions]),
  );
});

test('a batch written before the versions array (no rolloutVersions) loads on both sides, without versions', async () => {
  const episodes = [episode(0, 70), episode(1, 90)];
  const manifest = await writeTrainingBatch(dir, 'older', episodes);
  const written = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { arrays: Record<string, { file: string }> };
  fs.rmSync(path.join(dir, written.arrays.rolloutVersions!.file));
  delete written.arrays.rolloutVersions;
  fs.writeFileSync(manifest, JSON.stringify(written));

  const { episodes: back } = await readTrainingBatch(manifest);
  assert.deepEqual(
    back.map((e) => [e.episodeId, e.length, 'rolloutVersions' in e]),
    [
      ['ep-0', 70, false],
      ['ep-1', 90, false],
    ],
  );
  const fromPython = loadInPython(
    manifest,
    'print(json.dumps([[e["episodeId"], "rolloutVersions" in e, loss_tokens(e)] for e in episodes]))',
  );
  assert.deepEqual(
    fromPython,
    episodes.map((e) => [e.episodeId, false, e.lossMask.filter((m) => m === 1).length]),
  );
});

test('a batch whose episodes do not line up is refused before anything is written', async () => {
  const writer = await TrainingBatchWriter.create(dir, 'misaligned');
  await assert.rejects(writer.add({ ...episode(0, 70), lossMask: [0, 1] }), /ep-0: lossMask, rolloutLogprobs and/);
  await assert.rejects(writer.add({ ...episode(1, 70), rolloutVersions: [-1] }), /ep-1: lossMask, rolloutLogprobs and/);
  await writer.abort();
  assert.deepEqual(
    fs.readdirSync(dir).filter((f) => f.startsWith('misaligned')),
    [],
  );
});

test('256 episodes × 110,000 tokens (above the JSON string limit) build with bounded memory and load in the trainer', async () => {
  const count = 256;
  const tokens = 110_000;
  const writer = await TrainingBatchWriter.create(dir, 'large');
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  for (let i = 0; i < count; i++) {
    await writer.add(episode(i, tokens));
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }
  const manifest = await writer.finish();
  const bytes = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('large.'))
    .reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
  const grewMb = (rssPeak - rssBefore) / 2 ** 20;
  console.log(
    `batch of ${count} × ${tokens} tokens: ${(bytes / 2 ** 20).toFixed(0)} MiB on disk; writer RSS +${grewMb.toFixed(0)} MiB`,
  );
  const asJson = JSON.stringify(episode(0, tokens)).length * count;
  assert.ok(asJson > 536_870_888, `as one JSON string (the old batch.json), ${asJson} characters: past V8's limit`);
  assert.ok(grewMb < 0.5 * (bytes / 2 ** 20), `the writer holds about one episode, not the batch: +${grewMb} MiB`);

  const loaded = loadInPython(
    manifest,
    [
      'last = episodes[-1]',
      'print(json.dumps({"episodes": len(episodes), "tokens": sum(len(e["tokenIds"]) for e in episodes),',
      '  "lossTokens": sum(map(loss_tokens, episodes)), "lastIds": last["tokenIds"][:3].tolist(),',
      '  "lastLogprob": float(last["rolloutLogprobs"][65]), "memmapped": isinstance(last["tokenIds"], np.memmap),',
      '  "lastVersions": [int(last["rolloutVersions"][i]) for i in (0, 65, len(last["tokenIds"]) - 1)],',
      '  "maxRssMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))',
    ].join('\n'),
  );
  const expected = episode(count - 1, tokens);
  console.log(`the trainer's load_batch: peak RSS ${Number(loaded.maxRssMb).toFixed(0)} MiB`);
  assert.equal(loaded.episodes, count);
  assert.equal(loaded.tokens, count * tokens);
  assert.equal(loaded.lossTokens, count * expected.lossMask.filter((m) => m === 1).length);
  assert.deepEqual(loaded.lastIds, expected.tokenIds.slice(0, 3));
  assert.equal(loaded.lastLogprob, Math.fround(expected.rolloutLogprobs[65]!));
  assert.deepEqual(loaded.lastVersions, [-1, 3, 4]);
  assert.equal(loaded.memmapped, true, 'the columns are views of the memory-mapped arrays');
});

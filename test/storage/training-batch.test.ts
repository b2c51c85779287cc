import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createTrainingActivities } from '../../activities/training.js';
import { fromRoot } from '../../core/paths.js';
import { LocalArtifactStore } from '../../storage/artifacts.js';
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

test("an episode of the reference run's length (26,624 + 103,376 tokens) goes from its trajectory into a batch: small payloads, bounded memory", async () => {
  // The trajectory is an artifact (what runEpisode stores); buildBatch's input and result, the Temporal payloads,
  // carry its URI and counts only, however long the episode.
  const artifacts = new LocalArtifactStore(path.join(dir, 'artifacts'));
  const prompt = 26_624;
  const tokens = 130_000;
  const trajectoryOf = (i: number) => {
    const row = episode(i, tokens);
    return {
      tokenIds: row.tokenIds,
      lossMask: row.tokenIds.map((_, k) => (k < prompt ? 0 : 1)),
      rolloutLogprobs: row.tokenIds.map((_, k) => (k < prompt ? 0 : -((k % 97) + 1) / 100)),
      segments: [
        { kind: 'observation', start: 0, end: prompt, textStart: 0, textEnd: prompt * 4 },
        {
          kind: 'sample',
          start: prompt,
          end: tokens,
          textStart: prompt * 4,
          textEnd: tokens * 4,
          policyVersion: '3',
          finishReason: 'stop',
        },
      ],
      policyVersions: ['3'],
      drift: null,
      trainable: true,
    };
  };
  const episodes = [];
  for (const i of [0, 1]) {
    const trajectoryUri = await artifacts.put(`long/step-1/ep-${i}.trajectory.json`, JSON.stringify(trajectoryOf(i)));
    episodes.push({ episodeId: `ep-${i}`, reward: i as 0 | 1, trajectoryUri, trainable: true });
  }
  const input = { campaignId: 'long', step: 1, groups: [{ groupId: 'g0', taskId: 't0', episodes }] };
  const rssBefore = process.memoryUsage().rss;
  const result = await createTrainingActivities({ artifacts }).buildBatch(input);
  const grewMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const payloads = [JSON.stringify(input).length, JSON.stringify(result).length];
  console.log(
    `two ${tokens}-token episodes: payloads ${payloads.join(' and ')} characters, RSS +${grewMb.toFixed(0)} MiB`,
  );
  assert.ok(
    payloads.every((n) => n < 2048),
    `payloads of ${payloads.join(', ')} characters`,
  );
  assert.equal(result.episodes, 2);
  // One trajectory's JSON (about 3 MB) parsed at a time, and its columns: far below what 2 x 130k tokens of JSON
  // strings held at once would take.
  assert.ok(grewMb < 256, `buildBatch grew RSS by ${grewMb.toFixed(0)} MiB`);
  const manifest = new URL(result.batchUri).pathname;
  const fromPython = loadInPython(
    manifest,
    'print(json.dumps([[len(e["tokenIds"]), loss_tokens(e), int(e["rolloutVersions"][-1])] for e in episodes]))',
  );
  assert.deepEqual(fromPython, [
    [tokens, tokens - prompt, 3],
    [tokens, tokens - prompt, 3],
  ]);
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createFleetActivities } from '../../activities/fleet.js';
import { createTrainingActivities } from '../../activities/training.js';
import type { ArtifactStore } from '../../storage/artifacts.js';
import { InfrastructureError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { adapterPrefixOf } from '../../core/policy-versions.js';
import { loadConfig } from '../../workers/config.js';
import { listedAdapterVersions, publishAdapter, serversBelowRank } from '../../runtime/clients/adapter-admin.js';
import { defaultPublishOptions, type PublishOptions } from '../../runtime/clients/policy-admin.js';
import { PolicyClient } from '../../runtime/clients/policy-client.js';
import { PolicyClientConfig, type PolicyServerKind } from '../../schemas/clients.js';
import { freePort, startProcess } from '../helpers/index.js';
import { buildTinyModel, lockVllm, suiteVllm } from '../helpers/vllm.js';

// LoRA campaigns publish each step as an adapter beside the base model (runtime/clients/adapter-admin.ts), and the
// episodes name the newest adapter of their window (runtime/clients/policy-client.ts). Against both real servers: the
// suite's vLLM (CPU build, started with --enable-lora --max-lora-rank 8) and the project's policy server, each serving
// the tiny model (the same weights: seed 0), with adapters of it built here with PEFT
// (python/finalstate/testing/tiny_adapter.py). vLLM takes rank 8 at most, the project's server 16.

interface Target {
  label: string;
  kind: PolicyServerKind;
  url: string;
  model: string;
  weightsDir: string;
  token?: string;
  tokenFile?: string;
}

const config = loadConfig();
const python = fromRoot(config.python.venv, 'bin', 'python');
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-lora-'));
const cleanups: Array<() => Promise<unknown>> = [];
const prefix = adapterPrefixOf('lora-test');
const PROMPT = [5, 17, 42, 8, 99, 3, 11];

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  fs.rmSync(workDir, { recursive: true, force: true });
});

/** PEFT adapters of `modelDir` (name, rank, seed), written by one Python process; their directories. */
function writeAdapters(modelDir: string, specs: Array<[string, number, number]>): string[] {
  const dirs = specs.map(([name]) => path.join(workDir, `${path.basename(path.dirname(modelDir))}-${name}`));
  const built = spawnSync(
    python,
    [
      '-m',
      'finalstate.testing.tiny_adapter',
      modelDir,
      ...specs.map(([, rank, seed], i) => `${dirs[i]}:${rank}:${seed}`),
    ],
    { env: { ...process.env, PYTHONPATH: fromRoot('python') }, encoding: 'utf8' },
  );
  assert.equal(built.status, 0, built.stderr);
  return dirs;
}

async function vllmTarget(): Promise<Target> {
  const vllm = await suiteVllm({ lora: true });
  const { release } = await lockVllm(vllm);
  cleanups.push(() => vllm.close(), release);
  return { label: 'vLLM', kind: 'vllm', url: vllm.url, model: vllm.model, weightsDir: vllm.weightsDir };
}

async function projectTarget(): Promise<Target> {
  const weightsDir = buildTinyModel(path.join(workDir, 'model'));
  const port = await freePort();
  const tokenFile = path.join(workDir, 'admin.token');
  const server = startProcess(
    python,
    ['-m', 'finalstate.policy_server', '--model', weightsDir, '--port', String(port), '--device', 'cpu'].concat([
      '--served-model-name',
      'tiny-policy',
      '--max-lora-rank',
      '16',
      '--admin-token-file',
      tokenFile,
    ]),
    /policy server ready/,
    { PYTHONPATH: fromRoot('python') },
    180_000,
  );
  cleanups.push(() => server.stop());
  await server.started;
  const token = fs.readFileSync(tokenFile, 'utf8').trim();
  return {
    label: "the project's policy server",
    kind: 'finalstate',
    url: `http://127.0.0.1:${port}`,
    model: 'tiny-policy',
    weightsDir,
    token,
    tokenFile,
  };
}

const options = (target: Target): PublishOptions => ({
  ...defaultPublishOptions,
  backoffMs: 5,
  ...(target.token && { token: target.token }),
});

function client(target: Target, version: number, minVersion = version) {
  return new PolicyClient(
    PolicyClientConfig.parse({
      baseUrl: target.url,
      model: target.model,
      serverKind: target.kind,
      sampling: { maxTokens: 8, temperature: 0, seed: 1 },
    }),
    { policyVersion: String(version), minVersion: String(minVersion), adapterPrefix: prefix },
  );
}

const targets: Target[] = [];
let first: string;
let second: string;
let corrupt: string;
let wide: string;

before(async () => {
  targets.push(await vllmTarget(), await projectTarget());
  [first, second, corrupt, wide] = writeAdapters(targets[1]!.weightsDir, [
    ['adapter-1', 8, 1],
    ['adapter-2', 8, 2],
    ['corrupt', 8, 3],
    ['wide', 16, 4],
  ]) as [string, string, string, string];
  const weights = path.join(corrupt, 'adapter_model.safetensors');
  fs.truncateSync(weights, Math.floor(fs.statSync(weights).size / 2));
});

/** Unload every adapter of this test's campaign from `target`: leave the server as found. */
async function unloadAll(target: Target): Promise<void> {
  for (const version of await listedAdapterVersions({ url: target.url, kind: target.kind }, prefix, options(target)))
    await fetch(`${target.url}/v1/unload_lora_adapter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(target.token && { authorization: `Bearer ${target.token}` }) },
      body: JSON.stringify({ lora_name: `${prefix}${version}` }),
    });
}

for (const [index, label] of ['vLLM', "the project's policy server"].entries()) {
  describe(`LoRA adapters on ${label}`, () => {
    let target: Target;
    before(() => {
      target = targets[index]!;
    });
    after(() => unloadAll(target));

    test('a rank above what the server reports serving is caught before a campaign starts (vLLM reports none)', async () => {
      const server = { url: target.url, kind: target.kind };
      assert.deepEqual(await serversBelowRank([server], 16, options(target)), []);
      assert.deepEqual(
        await serversBelowRank([server], 32, options(target)),
        target.kind === 'finalstate'
          ? [
              `policy server ${target.url} serves LoRA adapters up to rank 16 (--max-lora-rank), below update.lora.rank 32`,
            ]
          : [],
      );
    });

    test('an adapter loads without a pause, serves by name and pins the version; a bad one is refused while the loaded one serves; old ones are unloaded', async () => {
      const server = { url: target.url, kind: target.kind };
      const base = await client(target, 0).complete({ promptTokenIds: PROMPT });
      assert.equal(base.policyVersion, '0');

      const published = await publishAdapter(server, first, 1, { prefix }, options(target));
      assert.equal(published.version, 1);
      const v1 = await client(target, 1).complete({ promptTokenIds: PROMPT });
      assert.equal(v1.policyVersion, '1');
      assert.equal(v1.model, `${prefix}1`);
      assert.notDeepEqual(v1.logprobs, base.logprobs, 'the adapter changes what the model computes');
      // The base model still serves beside it: a window that holds version 0 only gets the base.
      assert.deepEqual((await client(target, 0).complete({ promptTokenIds: PROMPT })).logprobs, base.logprobs);

      // A truncated adapter file and one of a rank above the server's maximum are refused, naming server and adapter.
      for (const bad of target.kind === 'vllm' ? [corrupt, wide] : [corrupt]) {
        await assert.rejects(publishAdapter(server, bad, 2, { prefix }, options(target)), (err: unknown) => {
          assert.ok(err instanceof InfrastructureError, String(err));
          assert.match(
            err.message,
            new RegExp(`${target.url}.*could not load LoRA adapter ${prefix}2 .*${path.basename(bad)}`),
          );
          return true;
        });
        assert.deepEqual(await listedAdapterVersions(server, prefix, options(target)), [1]);
        const still = await client(target, 1).complete({ promptTokenIds: PROMPT });
        assert.deepEqual([still.policyVersion, still.logprobs], ['1', v1.logprobs], 'version 1 keeps serving');
      }

      // Version 2, with the window of K = 1 ([1, 2]): both stay; with keepFrom 2 the first is unloaded.
      await publishAdapter(server, second, 2, { prefix, keepFrom: 1 }, options(target));
      assert.deepEqual(await listedAdapterVersions(server, prefix, options(target)), [2, 1]);
      const windowed = await client(target, 2, 1).complete({ promptTokenIds: PROMPT });
      assert.equal(windowed.policyVersion, '2', 'the newest of the window the server has loaded');
      assert.notDeepEqual(windowed.logprobs, v1.logprobs);
      assert.equal((await client(target, 1).complete({ promptTokenIds: PROMPT })).policyVersion, '1');

      const again = await publishAdapter(server, second, 2, { prefix, keepFrom: 2 }, options(target));
      assert.deepEqual(
        again.unloaded,
        [`${prefix}1`],
        'a republish loads nothing twice and unloads what is out of every window',
      );
      assert.deepEqual(await listedAdapterVersions(server, prefix, options(target)), [2]);
      await assert.rejects(client(target, 1).complete({ promptTokenIds: PROMPT }), (err: unknown) => {
        assert.ok(err instanceof InfrastructureError);
        assert.match(err.message, /no adapter of versions 1\.\.1 loaded/);
        return true;
      });
    });
  });
}

describe('the fleet activities with adapters: reconcile and ejection', () => {
  const ref = (t: Target) => ({ url: t.url, kind: t.kind, ...(t.tokenFile && { tokenFile: t.tokenFile }) });
  const publish = { ...defaultPublishOptions, backoffMs: 5 };
  const { reconcileFleet } = createFleetActivities({ publish });
  const { publishPolicy } = createTrainingActivities({ artifacts: {} as ArtifactStore, publish });
  after(() => Promise.all(targets.map(unloadAll)));

  test('reconcileFleet loads the current adapter where it is missing; a failed load ejects a server, the others serve on', async () => {
    const servers = targets.map(ref);
    const reconcile = (version: number, dir: string) =>
      new MockActivityEnvironment().run(reconcileFleet, {
        servers,
        current: { checkpointUri: pathToFileURL(dir).href, version },
        baseModel: targets[0]!.weightsDir,
        adapterPrefix: prefix,
      }) as ReturnType<typeof reconcileFleet>;
    // A server that restarted has no adapter: reconcile loads the current one; a second round finds it there.
    assert.deepEqual(
      (await reconcile(1, first)).servers.map((s) => s.action),
      ['republished', 'republished'],
    );
    assert.deepEqual(
      (await reconcile(1, first)).servers.map((s) => s.action),
      ['current', 'current'],
    );
    // Version 2 is an adapter of rank 16: vLLM (--max-lora-rank 8) refuses it and is ejected naming the adapter; the
    // project's server loads it, so with fleet.minServers 1 the step goes on, and version 1 is unloaded there.
    const result = (await new MockActivityEnvironment().run(publishPolicy, {
      checkpointUri: pathToFileURL(wide).href,
      version: 2,
      servers,
      minServers: 1,
      adapter: { prefix, keepFrom: 2 },
    })) as Awaited<ReturnType<typeof publishPolicy>>;
    assert.deepEqual(
      result.servers.map((s) => s.url),
      [targets[1]!.url],
    );
    assert.equal(result.ejected.length, 1);
    assert.equal(result.ejected[0]!.url, targets[0]!.url);
    assert.match(result.ejected[0]!.reason, new RegExp(`could not load LoRA adapter ${prefix}2 .*goes on serving`));
    assert.deepEqual(await listedAdapterVersions(servers[1]!, prefix, options(targets[1]!)), [2]);
    assert.deepEqual(await listedAdapterVersions(servers[0]!, prefix, options(targets[0]!)), [1], 'vLLM serves on');
  });
});

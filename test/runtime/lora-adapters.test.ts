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
import {
  AdapterRefusedError,
  listedAdapterVersions,
  publishAdapter,
  serversBelowRank,
} from '../../runtime/clients/adapter-admin.js';
import { defaultPublishOptions, type PublishOptions } from '../../runtime/clients/policy-admin.js';
import { PolicyClient } from '../../runtime/clients/policy-client.js';
import { PolicyClientConfig, type PolicyServerKind } from '../../schemas/clients.js';
import { freePort, startProcess } from '../helpers/index.js';
import { failedStepText } from '../../cli/progress.js';
import type { CampaignStatus } from '../../schemas/campaign.js';
import { startPipeline, task, type Pipeline } from '../../testkit/pipeline/harness.js';
import { failedStepStatus } from '../pipeline/cli.js';
import { activityEnd } from '../pipeline/histories.js';
import { buildTinyModel, lockVllm, suiteVllm } from '../helpers/vllm.js';

// LoRA campaigns publish each step as an adapter beside the base model (runtime/clients/adapter-admin.ts), and the
// episodes name the newest adapter of their window (runtime/clients/policy-client.ts). Against both real servers: the
// suite's vLLM (CPU build, started with --enable-lora --max-lora-rank 8) and the project's policy server, each serving
// the tiny model (the same weights: seed 0), with adapters of it built here with PEFT
// (python/finalstate/testing/tiny_adapter.py). vLLM takes rank 8 at most, the project's server 16. Last, LoRA campaigns
// on the real Temporal dev server and PostgreSQL (stand-in episodes and updates) whose second step's adapter vLLM
// cannot serve: the step fails at its first publish attempt with its whole cause.

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
let wider: string;

before(async () => {
  targets.push(await vllmTarget(), await projectTarget());
  [first, second, corrupt, wide, wider] = writeAdapters(targets[1]!.weightsDir, [
    ['adapter-1', 8, 1],
    ['adapter-2', 8, 2],
    ['corrupt', 8, 3],
    ['wide', 16, 4],
    ['wider', 32, 5],
  ]) as [string, string, string, string, string];
  const weights = path.join(corrupt, 'adapter_model.safetensors');
  fs.truncateSync(weights, Math.floor(fs.statSync(weights).size / 2));
});

/** Unload every adapter of this test's campaign (or of `of`) from `target`: leave the server as found. */
async function unloadAll(target: Target, of = prefix): Promise<void> {
  for (const version of await listedAdapterVersions({ url: target.url, kind: target.kind }, of, options(target)))
    await fetch(`${target.url}/v1/unload_lora_adapter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(target.token && { authorization: `Bearer ${target.token}` }) },
      body: JSON.stringify({ lora_name: `${of}${version}` }),
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

      // A truncated adapter file and one of a rank above the server's maximum are refused, naming server and adapter,
      // as refusals of the adapter itself (AdapterRefusedError: not retried), each with the server's own reason: vLLM
      // answers both with HTTP 500; the project's server refuses the truncated file (400) and reports its maximum
      // rank, so the wide one is refused before it is sent.
      const reasons: Array<[string, RegExp]> =
        target.kind === 'vllm'
          ? [
              [
                corrupt,
                /answered HTTP 500: .*'Error while deserializing header: incomplete metadata, file not fully covered'/,
              ],
              [wide, /answered HTTP 500: .*'LoRA rank 16 is greater than max_lora_rank 8\.'/],
            ]
          : [
              [corrupt, /refused the request \(HTTP 400\): .*adapter_model\.safetensors cannot be read/],
              [wider, /its rank 32 is above the server's --max-lora-rank 16/],
            ];
      for (const [bad, reason] of reasons) {
        await assert.rejects(publishAdapter(server, bad, 2, { prefix }, options(target)), (err: unknown) => {
          assert.ok(err instanceof AdapterRefusedError, String(err));
          assert.match(
            err.message,
            new RegExp(`${target.url} (refused|cannot serve) LoRA adapter ${prefix}2 .*${path.basename(bad)}`),
          );
          assert.match(err.message, reason);
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
  after(() => Promise.all(targets.map((t) => unloadAll(t))));

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
    assert.match(result.ejected[0]!.reason, new RegExp(`refused LoRA adapter ${prefix}2 .*goes on serving`));
    assert.equal(result.ejected[0]!.refused, true, 'a refusal of the adapter itself');
    assert.deepEqual(await listedAdapterVersions(servers[1]!, prefix, options(targets[1]!)), [2]);
    assert.deepEqual(await listedAdapterVersions(servers[0]!, prefix, options(targets[0]!)), [1], 'vLLM serves on');
  });
});

// A LoRA campaign on vLLM whose step-2 adapter is truncated (the publisher's own check refuses it before vLLM sees it)
// or of a rank above vLLM's --max-lora-rank (vLLM refuses it with HTTP 500): the step fails at its first publish
// attempt, with the whole cause in the campaign's status, `campaign status` (text and --json) and the demo's line;
// version 1 serves on; nothing is scored because of it. The campaigns start at training with a pool given (no probe),
// on the pipeline harness: the real Temporal dev server, PostgreSQL and control worker (publishPolicy on this vLLM),
// stand-in episodes (no model) and a stand-in gpu worker that writes step 1's adapter, then the bad one.
describe('a LoRA campaign whose adapter vLLM cannot serve: the step fails at once, naming why; version 1 serves on', () => {
  const tasks = [task('t-a', 0.5), task('t-b', 0.5), task('t-c', 0.5), task('e-1', 0.5, 'eval')];
  const stepTwo = new Map<string, string>();
  let p: Pipeline;
  let vllm: Target;
  const runs: Record<'corrupt' | 'wide', Promise<FailedCampaign>> = {} as never;

  interface FailedCampaign {
    id: string;
    status: CampaignStatus;
    text: string;
    json: CampaignStatus;
    publish: { attempt: number; toWorkflowEndMs: number };
  }

  async function failAtStepTwo(bad: string): Promise<FailedCampaign> {
    const config = p.campaignConfig({
      steps: 2,
      seed: 11,
      update: { baseModel: vllm.weightsDir, lora: { rank: 8 } },
      policyServers: [{ url: vllm.url, kind: 'vllm' }],
    });
    const id = config.campaignId;
    stepTwo.set(id, bad);
    const shown = await failedStepStatus(await p.startAtTraining(config, ['t-a', 't-b', 't-c']));
    return { id, ...shown, publish: await activityEnd(p.client, `${id}/step-2`, 'publishPolicy') };
  }

  before(async () => {
    vllm = targets[0]!;
    p = await startPipeline(tasks, {}, 8, {
      checkpointWeights: (input) => (input.step === 1 ? first : stepTwo.get(input.campaignId)!),
    });
    runs.corrupt = failAtStepTwo(corrupt);
    runs.wide = failAtStepTwo(wide);
    for (const run of Object.values(runs)) run.catch(() => undefined); // read by its test
  });
  after(async () => {
    for (const id of stepTwo.keys()) {
      await p.client.workflow
        .getHandle(id)
        .terminate('the failed step is all this test needs')
        .catch(() => undefined);
      await unloadAll(vllm, adapterPrefixOf(id));
    }
    await p?.close();
  });

  const cases: Array<[keyof typeof runs, string, (id: string) => RegExp[]]> = [
    [
      'corrupt',
      'a truncated adapter',
      (id) => [
        new RegExp(`^workflow grpoStep ${id}/step-2: activity publishPolicy \\(not retried\\): IncompleteCheckpoint: `),
        /not publishing policy version 2: checkpoint .*step-000002: adapter_model\.safetensors has \d+ bytes but its header covers \d+ \(truncated\)/,
        /No server was touched; .* Remove the directory and replay the step/,
      ],
    ],
    [
      'wide',
      'an adapter of rank 16 on a vLLM of --max-lora-rank 8',
      (id) => [
        new RegExp(`^workflow grpoStep ${id}/step-2: activity publishPolicy \\(not retried\\): AdapterRefused: `),
        /policy version 2 serves on 0 of 1 rollout servers, fewer than fleet\.minServers 1, and no retry can change that/,
        new RegExp(
          `${vllm.url}: policy server ${vllm.url} refused LoRA adapter ${id}-v2 \\(policy version 2\\) from .*step-000002`,
        ),
        /answered HTTP 500: Call to add_lora method failed: Worker failed with error 'LoRA rank 16 is greater than max_lora_rank 8\.'/,
      ],
    ],
  ];
  for (const [key, label, parts] of cases)
    test(`${label}: one publish attempt, the whole cause in campaign status, --json and the demo's line; version 1 serves on, nothing scored for it`, async (t) => {
      const run = await runs[key];
      const { id, status } = run;
      t.diagnostic(
        `${key}: publishPolicy scheduled -> step failed: ${(run.publish.toWorkflowEndMs / 1000).toFixed(1)} s, attempt ${run.publish.attempt}`,
      );
      assert.equal(status.failedStep?.step, 2);
      const message = status.failedStep.message;
      t.diagnostic(message);
      for (const part of parts(id)) assert.match(message, part, message);
      assert.equal(run.publish.attempt, 1, 'the publish was not retried');
      assert.equal(run.json.failedStep?.message, message, 'campaign status --json');
      assert.ok(run.text.includes(`step 2 FAILED: ${message}`), `campaign status:\n${run.text}`);
      assert.ok(failedStepText(id, status.failedStep).startsWith(`step 2 FAILED: ${message}\n`), "the demo's line");

      // vLLM serves version 1's adapter as before, and only it.
      const server = { url: vllm.url, kind: vllm.kind };
      assert.deepEqual(await listedAdapterVersions(server, adapterPrefixOf(id), options(vllm)), [1]);
      const served = await new PolicyClient(
        PolicyClientConfig.parse({
          baseUrl: vllm.url,
          model: vllm.model,
          serverKind: 'vllm',
          sampling: { maxTokens: 4, temperature: 0, seed: 1 },
        }),
        { policyVersion: '1', minVersion: '1', adapterPrefix: adapterPrefixOf(id) },
      ).complete({ promptTokenIds: PROMPT });
      assert.equal(served.policyVersion, '1');

      // Nothing scored because of it: step 2's episodes were all scored on version 1 before the publish, none was lost
      // to infrastructure, and nothing ran after it (no step 3, no evaluation of version 2).
      assert.equal(status.step, 1);
      assert.equal(status.episodes.infraFailed, 0);
      const rows = await p.pool.query<{ result_set: string; error: string | null }>(
        'SELECT result_set, error FROM campaign_result_rows WHERE campaign_id = $1',
        [id],
      );
      assert.deepEqual([...new Set(rows.rows.map((r) => r.result_set))].sort(), [`${id}/step-1`, `${id}/step-2`]);
      assert.equal(rows.rows.filter((r) => r.error !== null).length, 0);
    });
});

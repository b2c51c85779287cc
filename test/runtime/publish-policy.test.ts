import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createTrainingActivities, type PublishPolicyInput } from '../../activities/training.js';
import { fromRoot } from '../../core/paths.js';
import { loadConfig } from '../../workers/config.js';
import type { ArtifactStore } from '../../storage/artifacts.js';
import { defaultPublishOptions } from '../../runtime/clients/policy-admin.js';
import { PolicyClient } from '../../runtime/clients/policy-client.js';
import { InfrastructureError } from '../../core/errors.js';
import { PolicyClientConfig } from '../../schemas/clients.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { freePort, startProcess } from '../helpers/index.js';
import { buildTinyModel, lockVllm, suiteVllm, type VllmTarget } from '../helpers/vllm.js';

// The publishPolicy activity over the publisher, against real servers: vLLM's CPU build (the suite's) and the
// project's policy server at once; the checkpoint URI as a local path for vLLM's weights_path; the checkpoint checked
// complete before any server is touched; a refusal (4xx) turned into a non-retryable PolicyServerRejected failure.
const { publishPolicy } = createTrainingActivities({
  artifacts: {} as ArtifactStore,
  publish: { ...defaultPublishOptions, backoffMs: 5 },
});
const config = loadConfig();
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-publish-'));
let vllm: VllmTarget & { close(): Promise<void> };
let release: () => Promise<void>;
let ours: ReturnType<typeof startProcess>;
let oursUrl: string;
let otherDir: string;

before(async () => {
  otherDir = buildTinyModel(path.join(workDir, 'other'), 1);
  vllm = await suiteVllm();
  release = (await lockVllm(vllm)).release;
  const port = await freePort();
  ours = startProcess(
    fromRoot(config.python.venv, 'bin', 'python'),
    [
      '-m',
      'finalstate.policy_server',
      '--model',
      vllm.weightsDir,
      '--port',
      String(port),
      '--device',
      'cpu',
      '--admin-token-file',
      path.join(workDir, 'admin.token'),
    ],
    /policy server ready/,
    { PYTHONPATH: fromRoot('python') },
    180_000, // beside vLLM, loading torch can take minutes on a busy 2-core machine
  );
  await ours.started;
  oursUrl = `http://127.0.0.1:${port}`;
});

after(async () => {
  await ours?.stop();
  await release?.();
  await vllm?.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

const run = (input: PublishPolicyInput) =>
  new MockActivityEnvironment().run(publishPolicy, input) as ReturnType<typeof publishPolicy>;
const weightVersion = async () =>
  ((await (await fetch(`${vllm.url}/weight_info`)).json()) as { weight_version: string }).weight_version;

test('publishPolicy loads the checkpoint on every server at once, vLLM and the project server, as the version the workflow gave', async () => {
  const result = await run({
    checkpointUri: pathToFileURL(otherDir).href,
    version: 2,
    servers: [
      { url: vllm.url, kind: 'vllm' },
      { url: oursUrl, kind: 'finalstate', tokenFile: path.join(workDir, 'admin.token') },
    ],
    previous: { checkpointUri: vllm.weightsDir, version: 0 },
  });
  assert.deepEqual(
    result.servers.map((s) => [s.kind, s.version]),
    [
      ['vllm', 2],
      ['finalstate', 2],
    ],
  );
  assert.equal(await weightVersion(), '2');
  // the checkpoint path (`root`) is shown only to a caller with the admin token
  const token = fs.readFileSync(path.join(workDir, 'admin.token'), 'utf8').trim();
  const models = (await (
    await fetch(`${oursUrl}/v1/models`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as {
    data: Array<{ root: string; policy_version: number }>;
  };
  assert.deepEqual([models.data[0]!.root, models.data[0]!.policy_version], [otherDir, 2]);
});

test('an incomplete checkpoint is never published: IncompleteCheckpoint, not retried, and no server is touched', async () => {
  const truncated = path.join(workDir, 'truncated');
  fs.cpSync(otherDir, truncated, { recursive: true });
  const weights = path.join(truncated, 'model.safetensors');
  fs.truncateSync(weights, fs.statSync(weights).size - 1000);
  const proxy = await new FaultProxy(vllm.url).start();
  const before = await weightVersion();
  try {
    await assert.rejects(
      run({
        checkpointUri: pathToFileURL(truncated).href,
        version: 3,
        servers: [{ url: proxy.url, kind: 'vllm' }],
        previous: { checkpointUri: otherDir, version: 2 },
      }),
      (err: unknown) => {
        assert.ok(err instanceof ApplicationFailure);
        assert.equal(err.type, 'IncompleteCheckpoint');
        assert.equal(err.nonRetryable, true);
        assert.match(err.message, /not publishing policy version 3: checkpoint .*truncated: model\.safetensors has/);
        assert.match(err.message, /No server was touched/);
        return true;
      },
    );
    assert.deepEqual(proxy.requests, []);
    assert.equal(await weightVersion(), before);
  } finally {
    await proxy.stop();
  }
});

test('a checkpoint URI that is no local path fails the activity as a user error, before any server is touched', async () => {
  const proxy = await new FaultProxy(vllm.url).start();
  try {
    await assert.rejects(
      run({ checkpointUri: 's3://bucket/step-000001', version: 1, servers: [{ url: proxy.url, kind: 'vllm' }] }),
      (err: unknown) =>
        err instanceof ApplicationFailure &&
        err.type === 'UserError' &&
        err.nonRetryable &&
        /only file:\/\/ URIs and paths/.test(err.message),
    );
    assert.deepEqual(proxy.requests, []);
  } finally {
    await proxy.stop();
  }
});

test('a server of another kind than configured fails the activity at once (PolicyServerRejected), before it is paused', async () => {
  const proxy = await new FaultProxy(vllm.url).start();
  try {
    await assert.rejects(
      run({
        checkpointUri: pathToFileURL(otherDir).href,
        version: 3,
        servers: [{ url: proxy.url, kind: 'finalstate' }],
      }),
      (err: unknown) =>
        err instanceof ApplicationFailure &&
        err.type === 'PolicyServerRejected' &&
        err.nonRetryable &&
        /to finalstate server .*: .*owned_by "vllm": it is a vllm server; set its kind to "vllm"/.test(err.message),
    );
    assert.deepEqual(proxy.paths(), ['/v1/models']);
  } finally {
    await proxy.stop();
  }
});

test('a publish failing on one of two servers ejects it, with why; the activity fails only below fleet.minServers', async () => {
  const dead = `http://127.0.0.1:${await freePort()}`; // nothing listens: connection refused
  const servers = [
    { url: oursUrl, kind: 'finalstate' as const, tokenFile: path.join(workDir, 'admin.token') },
    { url: dead, kind: 'vllm' as const },
  ];
  const result = await run({ checkpointUri: pathToFileURL(otherDir).href, version: 3, servers, minServers: 1 });
  assert.deepEqual(
    result.servers.map((s) => [s.url, s.version]),
    [[oursUrl, 3]],
  );
  assert.deepEqual(
    result.ejected.map((e) => e.url),
    [dead],
  );
  assert.match(result.ejected[0]!.reason, /unreachable \(ECONNREFUSED\)/);
  await assert.rejects(
    run({ checkpointUri: pathToFileURL(otherDir).href, version: 3, servers, minServers: 2 }),
    (err: unknown) =>
      err instanceof ApplicationFailure &&
      err.type === 'Infrastructure' &&
      !err.nonRetryable &&
      /policy version 3 serves on 1 of 2 rollout servers, fewer than fleet\.minServers 2: http:\/\/127\.0\.0\.1:\d+: .*unreachable/.test(
        err.message,
      ),
  );
});

test("the policy client's window against the project's server: the version each completion reports, inside [minVersion, version]", async () => {
  const served = await (await fetch(`${oursUrl}/v1/models`)).json();
  const model = (served as { data: Array<{ id: string; policy_version: number }> }).data[0]!;
  assert.equal(model.policy_version, 3);
  const failed: Array<number | undefined> = [];
  const complete = (min: string, max: string) =>
    new PolicyClient(PolicyClientConfig.parse({ baseUrl: oursUrl, model: model.id, serverKind: 'finalstate' }), {
      policyVersion: max,
      minVersion: min,
      reports: { served: () => undefined, failed: (_, floor) => failed.push(floor) },
    }).complete({ promptTokenIds: [5, 9], maxTokens: 3 });
  assert.equal((await complete('2', '4')).policyVersion, '3');
  assert.equal((await complete('3', '3')).policyVersion, '3');
  await assert.rejects(
    complete('4', '5'),
    (err: unknown) => err instanceof InfrastructureError && /outside the episode's window 4\.\.5/.test(err.message),
  );
  await assert.rejects(
    complete('1', '2'),
    (err: unknown) =>
      err instanceof InfrastructureError && /a newer policy than the episode may train on/.test(err.message),
  );
  assert.deepEqual(failed, [4], 'only the server behind the window is taken out');
});

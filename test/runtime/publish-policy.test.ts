import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createTrainingActivities, type PublishPolicyInput } from '../../activities/training.js';
import type { ArtifactStore } from '../../storage/artifacts.js';
import { defaultPublishOptions } from '../../runtime/clients/policy-admin.js';
import { FakeVllmServer } from './fake-vllm-server.js';

// The publishPolicy activity over the publisher: every server at once, the checkpoint URI as a local path for vLLM's
// weights_path, and a refusal (4xx) turned into a non-retryable PolicyServerRejected failure.
const { publishPolicy } = createTrainingActivities({
  artifacts: {} as ArtifactStore,
  publish: { ...defaultPublishOptions, backoffMs: 5 },
});

test('publishPolicy loads the checkpoint on every server and reports the version the workflow gave', async () => {
  const servers = await Promise.all([
    new FakeVllmServer({ respond: () => 'ok' }).start(),
    new FakeVllmServer({ respond: () => 'ok' }).start(),
  ]);
  try {
    const input: PublishPolicyInput = {
      checkpointUri: pathToFileURL('/shared/ckpt/step-000002').href,
      version: 2,
      servers: servers.map((s) => ({ url: s.url, kind: 'vllm' as const })),
    };
    const result = (await new MockActivityEnvironment().run(publishPolicy, input)) as Awaited<
      ReturnType<typeof publishPolicy>
    >;
    assert.deepEqual(
      result.servers.map((s) => s.version),
      [2, 2],
    );
    for (const s of servers) assert.deepEqual(s.reloads, ['/shared/ckpt/step-000002']);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
});

test('a server that refuses (vLLM started without VLLM_SERVER_DEV_MODE=1) fails the activity without retries', async () => {
  const server = await new FakeVllmServer({ respond: () => 'ok', devMode: false }).start();
  try {
    const input: PublishPolicyInput = {
      checkpointUri: '/ckpt',
      version: 1,
      servers: [{ url: server.url, kind: 'vllm' }],
    };
    await assert.rejects(new MockActivityEnvironment().run(publishPolicy, input), (err: unknown) => {
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, 'PolicyServerRejected');
      assert.equal(err.nonRetryable, true);
      assert.match(err.message, /publishing policy version 1 to vllm server .*: .*HTTP 404.*VLLM_SERVER_DEV_MODE=1/);
      return true;
    });
  } finally {
    await server.stop();
  }
});

test('a checkpoint URI that is no local path fails the activity as a user error, before any server is paused', async () => {
  const server = await new FakeVllmServer({ respond: () => 'ok' }).start();
  try {
    const input: PublishPolicyInput = {
      checkpointUri: 's3://bucket/step-000001',
      version: 1,
      servers: [{ url: server.url, kind: 'vllm' }],
    };
    await assert.rejects(
      new MockActivityEnvironment().run(publishPolicy, input),
      (err: unknown) =>
        err instanceof ApplicationFailure &&
        err.type === 'UserError' &&
        err.nonRetryable &&
        /only file:\/\/ URIs and paths/.test(err.message),
    );
    assert.deepEqual(server.requests, []);
  } finally {
    await server.stop();
  }
});

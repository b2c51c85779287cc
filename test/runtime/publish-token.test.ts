import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createTrainingActivities, type PublishPolicyInput } from '../../activities/training.js';
import { adminTokenOf } from '../../runtime/clients/admin-token.js';
import { defaultPublishOptions } from '../../runtime/clients/policy-admin.js';
import type { PolicyServerRef } from '../../schemas/clients.js';
import type { ArtifactStore } from '../../storage/artifacts.js';
import { writeMinimalCheckpoint } from '../../testkit/pipeline/stand-in-gpu-worker.js';
import { VLLM_PUBLISH_PATHS } from '../helpers/vllm.js';

// Where publishPolicy gets the bearer token of each server's admin routes, and that it sends it on every admin call.
// The server here only records requests and answers 200 (vLLM's empty admin answers; /v1/models as vLLM owns it; the
// fingerprint's completion and /weight_info in vLLM's shape): the real policy server's checks are tested in
// python/tests/test_policy_server.py, test/runtime/policy-server-contract.test.ts and the security probes.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-publish-token-'));
const tokenFile = path.join(dir, 'admin.token');
const defaultFile = path.join(dir, 'secrets', 'policy-server.token');
const TOKEN = 'file-token-0123456789abcdef';
const ENV_TOKEN = 'env-token-0123456789abcdef';
let server: http.Server;
let url: string;
const seen: Array<{ path: string; authorization: string | undefined }> = [];
const checkpoint = path.join(dir, 'step-000001');
const MODELS = JSON.stringify({ object: 'list', data: [{ id: 'policy', object: 'model', owned_by: 'vllm' }] });
// The publisher's fingerprint of version 1 (prompt_logprobs of a prompt) and the version vLLM reports afterwards.
const ANSWERS: Record<string, string> = {
  '/v1/models': MODELS,
  '/v1/completions': JSON.stringify({
    model: 'policy',
    choices: [
      {
        text: '.',
        finish_reason: 'length',
        prompt_token_ids: [1, 2],
        prompt_logprobs: [null, { '2': { logprob: -1.5, rank: 1, decoded_token: 'b' } }],
      },
    ],
  }),
  '/weight_info': JSON.stringify({ weight_version: '1' }),
};

before(async () => {
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  fs.mkdirSync(checkpoint);
  await writeMinimalCheckpoint(checkpoint, 1);
  server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    req.resume().on('end', () => {
      const answer = ANSWERS[req.url ?? ''];
      if (answer) res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      else res.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

const publish = (servers: PolicyServerRef[], adminTokenFile?: string) => {
  const { publishPolicy } = createTrainingActivities({
    artifacts: {} as ArtifactStore,
    publish: { ...defaultPublishOptions, attempts: 1 },
    ...(adminTokenFile ? { adminTokenFile } : {}),
  });
  const input: PublishPolicyInput = { checkpointUri: checkpoint, version: 1, servers };
  return new MockActivityEnvironment().run(publishPolicy, input);
};

test('the token named by tokenFile goes with every admin call as Authorization: Bearer', async () => {
  seen.length = 0;
  await publish([{ url, kind: 'vllm', tokenFile }]);
  assert.deepEqual(
    seen.map((s) => s.path),
    VLLM_PUBLISH_PATHS,
  );
  assert.ok(
    seen.every((s) => s.authorization === `Bearer ${TOKEN}`),
    JSON.stringify(seen),
  );
});

test('tokenEnv reads the worker environment; without either, the stack file is used when it exists, else none', () => {
  const env = { FS_TEST_POLICY_TOKEN: ENV_TOKEN };
  assert.equal(adminTokenOf({ url, kind: 'vllm', tokenEnv: 'FS_TEST_POLICY_TOKEN' }, defaultFile, env), ENV_TOKEN);
  assert.equal(adminTokenOf({ url, kind: 'vllm' }, defaultFile, env), undefined, 'no stack file yet: no token');
  fs.mkdirSync(path.dirname(defaultFile), { recursive: true });
  fs.writeFileSync(defaultFile, 'stack-token-0123456789abcdef\n', { mode: 0o600 });
  assert.equal(adminTokenOf({ url, kind: 'finalstate' }, defaultFile, env), 'stack-token-0123456789abcdef');
  assert.equal(adminTokenOf({ url, kind: 'finalstate', tokenFile }, defaultFile, env), TOKEN, 'the ref wins');
});

test('a token source that is missing or malformed fails the activity as a user error before any server is paused', async () => {
  const short = path.join(dir, 'short.token');
  fs.writeFileSync(short, 'abc\n');
  seen.length = 0;
  for (const [ref, message] of [
    [
      { url, kind: 'vllm', tokenFile: path.join(dir, 'missing.token') },
      /cannot read token file .*missing\.token \(ENOENT\)/,
    ],
    [{ url, kind: 'vllm', tokenFile: short }, /token file .*short\.token: a bearer token needs at least 16 characters/],
    [
      { url, kind: 'vllm', tokenEnv: 'FS_TEST_UNSET_TOKEN' },
      /environment variable FS_TEST_UNSET_TOKEN \(tokenEnv\) is not set/,
    ],
  ] as [PolicyServerRef, RegExp][]) {
    await assert.rejects(publish([{ url, kind: 'vllm' }, ref]), (err: unknown) => {
      assert.ok(err instanceof ApplicationFailure, String(err));
      assert.equal(err.type, 'UserError');
      assert.equal(err.nonRetryable, true);
      assert.match(err.message, new RegExp(`policy server ${url}: ${message.source}`));
      return true;
    });
  }
  assert.deepEqual(seen, [], 'no server was touched');
});

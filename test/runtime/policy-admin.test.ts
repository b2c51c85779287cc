import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import {
  publishCheckpoint,
  reloadingVersion,
  resetPrefixCache,
  type PublishOptions,
} from '../../runtime/clients/policy-admin.js';
import { fingerprintOf } from '../../runtime/clients/fingerprint.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import {
  buildTinyModel,
  freezeMidGeneration,
  lockVllm,
  suiteVllm,
  VLLM_PUBLISH_PATHS,
  type VllmTarget,
} from '../helpers/vllm.js';

// The publisher against real vLLM (the suite's CPU build, test/helpers/vllm.ts), through a proxy that records every
// admin call and injects the 5xx answers a load balancer or a struggling server gives. The faults that need a server
// of their own (no dev mode, a reload that releases the weights, the crash after it) are in vllm-faults.test.ts.

const fast: PublishOptions = {
  requestTimeoutMs: 30_000,
  reloadTimeoutMs: 60_000,
  attempts: 3,
  backoffMs: 5,
  versionTimeoutMs: 2000,
};
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-admin-'));
let vllm: VllmTarget & { close(): Promise<void> };
let release: () => Promise<void>;
let otherDir: string;
let proxy: FaultProxy;

before(async () => {
  otherDir = buildTinyModel(path.join(workDir, 'other'), 1);
  vllm = await suiteVllm();
  release = (await lockVllm(vllm)).release;
});

after(async () => {
  await proxy?.stop();
  await release?.();
  await vllm?.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await proxy?.stop();
  proxy = await new FaultProxy(vllm.url).start();
});

const server = () => ({ url: proxy.url, kind: 'vllm' as const });
/** Set up a test's starting state directly, past the proxy. */
const publishDirectly = (dir: string, version: number) =>
  publishCheckpoint({ url: vllm.url, kind: 'vllm' }, dir, version, fast);
const get = async (route: string) => (await fetch(`${vllm.url}${route}`)).json();
const post = (route: string, body: unknown = {}) =>
  fetch(`${vllm.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const weightVersion = async () => ((await get('/weight_info')) as { weight_version: string }).weight_version;
const isPaused = async () => ((await get('/is_paused')) as { is_paused: boolean }).is_paused;

/** Greedy logprobs of a fixed prompt: they change exactly when the served weights do. */
async function fingerprint(): Promise<number[]> {
  const response = await post('/v1/completions', {
    model: vllm.model,
    prompt: [5, 9, 20, 33],
    max_tokens: 4,
    temperature: 0,
    logprobs: 0,
  });
  return ((await response.json()) as { choices: Array<{ logprobs: { token_logprobs: number[] } }> }).choices[0]!
    .logprobs.token_logprobs;
}

test('publishing to vLLM: identify, pause, mark, reload_weights, reset the prefix cache, set the version, resume, measure its fingerprint; the served weights change', async () => {
  const base = await fingerprint();
  const published = await publishCheckpoint(server(), otherDir, 3, fast);
  assert.deepEqual(proxy.paths(), VLLM_PUBLISH_PATHS);
  const bodies = proxy.requests.map((r) => r.body);
  assert.deepEqual(bodies[2], { new_version: reloadingVersion(3) });
  assert.deepEqual(bodies[3], { method: 'reload_weights', kwargs: { weights_path: otherDir }, timeout: 60 });
  assert.deepEqual(bodies[5], { new_version: '3' });
  assert.ok(proxy.requests.every((r) => r.status === 200));
  assert.deepEqual(published.attempts, {
    identify: 1,
    pause: 1,
    mark_reloading: 1,
    reload_weights: 1,
    reset_prefix_cache: 1,
    set_weight_version: 1,
    resume: 1,
    fingerprint: 1,
  });
  assert.deepEqual(bodies[8], undefined, 'GET /weight_info: the fingerprint is of version 3');
  const measured = proxy.requests[7]!;
  assert.equal((measured.body as { prompt_logprobs: number }).prompt_logprobs, 0);
  assert.deepEqual(published.fingerprint, fingerprintOf(proxy.url, measured.response));
  assert.ok(published.fingerprint!.logprobs.length >= 1);
  assert.equal(await weightVersion(), '3');
  assert.equal(await isPaused(), false);
  assert.notDeepEqual(await fingerprint(), base, 'the new weights serve');
});

test('a completion sent while the server is paused waits for /resume and is sampled by the new weights', async () => {
  await publishDirectly(vllm.weightsDir, 1);
  const base = await fingerprint();
  assert.equal((await post('/pause?mode=wait')).status, 200);
  let answered = false;
  const held = post('/v1/completions', {
    model: vllm.model,
    prompt: [5, 9, 20, 33],
    max_tokens: 4,
    temperature: 0,
    logprobs: 0,
  }).then(async (r) => {
    answered = true;
    return (await r.json()) as { choices: Array<{ logprobs: { token_logprobs: number[] } }> };
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(answered, false, 'a paused vLLM holds the request');
  await publishCheckpoint(server(), otherDir, 2, fast);
  const served = (await held).choices[0]!.logprobs.token_logprobs;
  assert.deepEqual(served, await fingerprint(), 'sampled by the weights published while it waited');
  assert.notDeepEqual(served, base);
});

test('5xx answers are retried per call, with backoff, and counted', async () => {
  proxy.failNext('/pause', 503);
  proxy.failNext('/collective_rpc', 500, 502);
  const published = await publishCheckpoint(server(), otherDir, 2, fast);
  assert.equal(published.attempts.pause, 2);
  assert.equal(published.attempts.reload_weights, 3);
  assert.equal(published.attempts.resume, 1);
  assert.equal(proxy.requests.filter((r) => r.path === '/collective_rpc' && !r.injected).length, 1);
  assert.equal(await weightVersion(), '2');
});

test('a reload that fails for good: vLLM is pointed back to the previous checkpoint before it is resumed', async () => {
  await publishDirectly(vllm.weightsDir, 2);
  const base = await fingerprint();
  proxy.failNext('/collective_rpc', 503, 503, 503);
  await assert.rejects(
    publishCheckpoint(server(), otherDir, 3, fast, { weightsPath: vllm.weightsDir, version: 2 }),
    (err: unknown) =>
      err instanceof InfrastructureError &&
      /collective_rpc answered HTTP 503/.test(err.message) &&
      /serves version 2 again/.test(err.message),
  );
  const reloads = proxy.requests.filter((r) => r.path === '/collective_rpc' && !r.injected);
  assert.deepEqual(
    reloads.map((r) => (r.body as { kwargs: { weights_path: string } }).kwargs.weights_path),
    [vllm.weightsDir],
    'the previous checkpoint was loaded again',
  );
  assert.equal(proxy.paths().at(-1), '/resume');
  assert.equal(await weightVersion(), '2');
  assert.equal(await isPaused(), false);
  assert.deepEqual(await fingerprint(), base);
});

test('with no previous checkpoint to go back to, a vLLM whose reload failed is left paused, never resumed', async () => {
  proxy.failNext('/collective_rpc', 503, 503, 503);
  await assert.rejects(
    publishCheckpoint(server(), otherDir, 3, fast),
    (err: unknown) =>
      err instanceof InfrastructureError && /left paused \(a completion would crash it\)/.test(err.message),
  );
  assert.ok(!proxy.paths().includes('/resume'));
  assert.equal(await isPaused(), true);
  assert.equal(await weightVersion(), reloadingVersion(3), 'no client takes it for any version meanwhile');
  // Here the proxy refused the reload, so vLLM still holds its weights: resuming it by hand is safe.
  assert.equal((await post('/resume')).status, 200);
});

test('a resume that fails too names both failures: a paused server serves nothing', async () => {
  proxy.failNext('/reset_prefix_cache', 503, 503, 503);
  proxy.failNext('/resume', 503, 503, 503);
  await assert.rejects(publishCheckpoint(server(), vllm.weightsDir, 2, fast), (err: unknown) => {
    assert.ok(err instanceof InfrastructureError);
    assert.match(
      err.message,
      /could not be resumed after an earlier failure \(.*reset_prefix_cache answered HTTP 503.*\): .*resume answered HTTP 503/,
    );
    return true;
  });
  assert.equal(await isPaused(), true);
  assert.equal((await post('/resume')).status, 200);
});

test('vLLM reports a prefix cache it could not reset as {"success": false} with status 200: the publisher treats it as a failure', async () => {
  // A long completion holds KV blocks while it runs: it is caught mid-generation by a freeze of the scheduler (pause
  // mode=keep, confirmed by vLLM's own running count: test/helpers/vllm.ts), where it holds them for as long as the
  // test needs, whatever the model's speed; then it is abandoned (which aborts it in vLLM) and the server thawed.
  const abandon = new AbortController();
  const { answer } = await freezeMidGeneration(vllm.url, () =>
    fetch(`${vllm.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: vllm.model, prompt: [5], max_tokens: 480, ignore_eos: true }),
      signal: abandon.signal,
    }).then((r) => r.text()),
  );
  try {
    const response = await post('/reset_prefix_cache');
    assert.deepEqual(
      { status: response.status, body: await response.json() },
      { status: 200, body: { success: false } },
      'while a request holds blocks',
    );
    const failure = await resetPrefixCache(vllm.url, { ...fast, attempts: 1 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(failure instanceof InfrastructureError, String(failure));
    assert.match(failure.message, /reset_prefix_cache answered \{"success": false\}/);
  } finally {
    abandon.abort();
    await answer.catch(() => undefined);
    assert.equal((await post('/resume')).status, 200);
  }
  await resetPrefixCache(vllm.url, { ...fast, attempts: 10, backoffMs: 50 });
});

test("vLLM answers the project's policy_version kwarg with a 500, not a refusal: why the publisher checks the server's kind first", async () => {
  const response = await post('/collective_rpc', {
    method: 'reload_weights',
    kwargs: { weights_path: vllm.weightsDir, policy_version: 3 },
  });
  assert.equal(response.status, 500);
  assert.match(
    ((await response.json()) as { error: { message: string } }).error.message,
    /unexpected keyword argument 'policy_version'/,
  );
  assert.equal((await fingerprint()).length, 4, 'the refused call left the weights alone');
});

test('a server that never answers: every call times out, is retried, and the publish fails within its bounds', async () => {
  const silent = http.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    await assert.rejects(
      publishCheckpoint({ url, kind: 'vllm' }, '/ckpt', 1, { ...fast, requestTimeoutMs: 100, attempts: 2 }),
      (err: unknown) => err instanceof InfrastructureError && /\/v1\/models timed out after 100 ms/.test(err.message),
    );
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

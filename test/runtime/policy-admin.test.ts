import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { EndpointRequestError } from '../../runtime/clients/errors.js';
import { publishCheckpoint, type PublishOptions } from '../../runtime/clients/policy-admin.js';
import { FakeVllmServer } from './fake-vllm-server.js';

const fast: PublishOptions = {
  requestTimeoutMs: 2000,
  reloadTimeoutMs: 2000,
  attempts: 3,
  backoffMs: 5,
  versionTimeoutMs: 2000,
};
const admin = (server: FakeVllmServer) => server.requests.filter((r) => r.path !== '/v1/completions');

async function withVllm(run: (server: FakeVllmServer) => Promise<void>, options: { devMode?: boolean } = {}) {
  const server = await new FakeVllmServer({ respond: () => 'ok', ...options }).start();
  try {
    await run(server);
  } finally {
    await server.stop();
  }
}

test('publishing to vLLM: pause, reload_weights with the checkpoint path, reset the prefix cache, resume; empty 200s are fine', () =>
  withVllm(async (server) => {
    const published = await publishCheckpoint({ url: `${server.url}/`, kind: 'vllm' }, '/ckpt/step-000003', 3, fast);
    assert.deepEqual(
      admin(server).map((r) => r.path),
      ['/pause?mode=wait', '/collective_rpc', '/reset_prefix_cache', '/resume'],
    );
    assert.deepEqual(admin(server)[1]!.body, {
      method: 'reload_weights',
      kwargs: { weights_path: '/ckpt/step-000003' },
      timeout: 2,
    });
    assert.deepEqual(server.reloads, ['/ckpt/step-000003']);
    assert.equal(server.paused, false);
    assert.deepEqual(published, {
      url: `${server.url}/`,
      kind: 'vllm',
      version: 3,
      attempts: { pause: 1, reload_weights: 1, reset_prefix_cache: 1, resume: 1 },
    });
  }));

test('a completion sent while the server is paused waits for /resume and is sampled by the new weights', () =>
  withVllm(async (server) => {
    await fetch(`${server.url}/pause`, { method: 'POST' });
    let answered = false;
    const held = fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: server.model, prompt: [101], max_tokens: 4 }),
    }).then((r) => {
      answered = true;
      return r.json();
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(answered, false);
    await publishCheckpoint({ url: server.url, kind: 'vllm' }, '/ckpt/step-000001', 1, fast);
    assert.equal(((await held) as { choices: unknown[] }).choices.length, 1);
    assert.ok(
      server.requests.findIndex((r) => r.path === '/v1/completions') <
        server.requests.findIndex((r) => r.path === '/resume'),
    );
  }));

test('5xx answers are retried per call, with backoff, and counted', () =>
  withVllm(async (server) => {
    server.failNextOn('/pause', 503);
    server.failNextOn('/collective_rpc', 500, 502);
    const published = await publishCheckpoint({ url: server.url, kind: 'vllm' }, '/ckpt', 2, fast);
    assert.deepEqual(published.attempts, { pause: 2, reload_weights: 3, reset_prefix_cache: 1, resume: 1 });
    assert.deepEqual(server.reloads, ['/ckpt']);
  }));

test('/resume runs even when the reload fails for good, and the reload failure is what is reported', () =>
  withVllm(async (server) => {
    server.failNextOn('/collective_rpc', 503, 503, 503);
    await assert.rejects(
      publishCheckpoint({ url: server.url, kind: 'vllm' }, '/ckpt', 2, fast),
      (err: unknown) => err instanceof InfrastructureError && /collective_rpc answered HTTP 503/.test(err.message),
    );
    assert.equal(admin(server).at(-1)!.path, '/resume');
    assert.equal(
      admin(server).filter((r) => r.path === '/reset_prefix_cache').length,
      0,
      'no step after the failed one except /resume',
    );
    assert.equal(server.paused, false);
  }));

test('a resume that fails too names both failures: a paused server serves nothing', () =>
  withVllm(async (server) => {
    server.failNextOn('/collective_rpc', 503, 503, 503);
    server.failNextOn('/resume', 503, 503, 503);
    await assert.rejects(publishCheckpoint({ url: server.url, kind: 'vllm' }, '/ckpt', 2, fast), (err: unknown) => {
      assert.ok(err instanceof InfrastructureError);
      assert.match(
        err.message,
        /could not be resumed after an earlier failure \(.*collective_rpc answered HTTP 503.*\): .*resume answered HTTP 503/,
      );
      return true;
    });
  }));

test("vLLM's reload_weights takes no policy_version: publishing to a vLLM server as kind finalstate fails with vLLM's bare 500", () =>
  withVllm(async (server) => {
    await assert.rejects(
      publishCheckpoint({ url: server.url, kind: 'finalstate' }, '/ckpt', 2, fast),
      /collective_rpc answered HTTP 500: Internal Server Error/,
    );
    assert.deepEqual(server.reloads, []);
    assert.equal(server.paused, false);
  }));

test('vLLM without VLLM_SERVER_DEV_MODE=1 has no admin routes: a 404 that is not retried and says what to set', () =>
  withVllm(
    async (server) => {
      await assert.rejects(publishCheckpoint({ url: server.url, kind: 'vllm' }, '/ckpt', 2, fast), (err: unknown) => {
        assert.ok(err instanceof EndpointRequestError && err.status === 404);
        assert.match(err.message, /VLLM_SERVER_DEV_MODE=1/);
        return true;
      });
      assert.equal(admin(server).filter((r) => r.path.startsWith('/pause')).length, 1, 'a 404 is not retried');
    },
    { devMode: false },
  ));

test('a server that never answers: every call times out, is retried, and the publish fails within its bounds', async () => {
  const silent = http.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const started = Date.now();
    await assert.rejects(
      publishCheckpoint({ url, kind: 'vllm' }, '/ckpt', 1, { ...fast, requestTimeoutMs: 100, attempts: 2 }),
      (err: unknown) =>
        err instanceof InfrastructureError &&
        /could not be resumed after an earlier failure \(.*pause.*timed out after 100 ms\)/.test(err.message),
    );
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

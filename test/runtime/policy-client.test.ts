import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { ContextLengthExceededError, EndpointRequestError } from '../../runtime/clients/errors.js';
import { PolicyClient } from '../../runtime/clients/policy-client.js';
import { chatFamily, PolicyClientConfig, type PolicyClientConfigInput } from '../../schemas/clients.js';
import { FakeVllmServer, IM_END_ID } from './fake-vllm-server.js';

const server = new FakeVllmServer({
  respond: ({ seed }) => `Hello from seed ${seed}.`,
  policyVersion: 'step-3',
  maxModelLen: 200,
});
const client = (overrides: Partial<PolicyClientConfigInput> = {}) =>
  new PolicyClient(
    PolicyClientConfig.parse({ baseUrl: server.url, model: server.model, timeoutMs: 5000, ...overrides }),
  );

before(() => server.start());
after(() => server.stop());

test('complete() sends token ids with the sampling parameters and returns ids and logprobs exactly as served', async () => {
  const policy = client({ sampling: { maxTokens: 64, temperature: 0.7, seed: 11, stop: ['###'] } });
  const prompt = server.tokenize('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
  const completion = await policy.complete({ promptTokenIds: prompt });
  const sent = server.requests.at(-1)!;
  assert.equal(sent.path, '/v1/completions');
  assert.deepEqual(sent.body.prompt, prompt);
  assert.equal(sent.body.max_tokens, 64);
  assert.equal(sent.body.temperature, 0.7);
  assert.equal(sent.body.seed, 11);
  assert.deepEqual(sent.body.stop, ['###']);
  assert.equal(sent.body.logprobs, 0);
  assert.equal(sent.body.return_token_ids, true);
  assert.deepEqual(completion.tokenIds, [...server.tokenize('Hello from seed 11.'), IM_END_ID]);
  assert.deepEqual(
    completion.logprobs,
    completion.tokenIds.map((id, i) => FakeVllmServer.logprob(11, prompt.length + i, id)),
  );
  assert.equal(completion.text, 'Hello from seed 11.');
  assert.equal(completion.finishReason, 'stop');
  assert.equal(completion.policyVersion, 'step-3');
  assert.deepEqual(completion.usage, {
    inputTokens: prompt.length,
    cachedInputTokens: 0,
    outputTokens: completion.tokenIds.length,
  });
});

test('a request can override the configured sampling; max_tokens cuts the turn with finishReason "length"', async () => {
  const completion = await client().complete({ promptTokenIds: [101, 102], maxTokens: 5, seed: 2 });
  assert.equal(completion.finishReason, 'length');
  assert.equal(completion.tokenIds.length, 5);
  assert.equal(completion.text, 'Hello');
});

test('token ids are also read from servers that only return them as "token_id:<id>" logprob tokens', async () => {
  const legacy = await new FakeVllmServer({ respond: () => 'ok', legacyTokenIds: true }).start();
  try {
    const policy = new PolicyClient(PolicyClientConfig.parse({ baseUrl: legacy.url, model: legacy.model }));
    const completion = await policy.complete({ promptTokenIds: [101] });
    assert.deepEqual(completion.tokenIds, [...legacy.tokenize('ok'), IM_END_ID]);
    assert.equal(
      completion.policyVersion,
      legacy.model,
      'vLLM reports no policy version: the served model name stands in',
    );
  } finally {
    await legacy.stop();
  }
});

test('tokenize and detokenize go through the server, without special tokens added', async () => {
  const policy = client();
  const text = '<|im_start|>user\ncafé\n\nbye<|im_end|>';
  const ids = await policy.tokenize(text);
  assert.deepEqual(ids, server.tokenize(text));
  assert.equal(server.requests.at(-1)!.body.add_special_tokens, false);
  assert.equal(await policy.detokenize(ids), text);
  assert.equal(policy.contextLength(), 200);
});

test('connection refused is an InfrastructureError naming the URL', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const policy = new PolicyClient(PolicyClientConfig.parse({ baseUrl: `http://127.0.0.1:${port}`, model: 'm' }));
  await assert.rejects(policy.complete({ promptTokenIds: [1] }), (err: unknown) => {
    assert.ok(err instanceof InfrastructureError);
    assert.equal(err.component, 'policy-server');
    assert.match(
      err.message,
      new RegExp(`policy-server at http://127\\.0\\.0\\.1:${port}/v1/completions unreachable \\(ECONNREFUSED\\)`),
    );
    return true;
  });
  await assert.rejects(policy.tokenize('x'), InfrastructureError);
});

test('5xx and 429 are InfrastructureError; other 4xx are clear, non-retryable request errors', async () => {
  server.failNext(503, 429);
  await assert.rejects(
    client().complete({ promptTokenIds: [1] }),
    (err: unknown) => err instanceof InfrastructureError && /answered HTTP 503: injected failure 503/.test(err.message),
  );
  await assert.rejects(
    client().detokenize([101]),
    (err: unknown) => err instanceof InfrastructureError && /HTTP 429/.test(err.message),
  );
  await assert.rejects(client({ model: 'no-such-model' }).complete({ promptTokenIds: [1] }), (err: unknown) => {
    assert.ok(err instanceof EndpointRequestError && !(err instanceof InfrastructureError));
    assert.equal(err.status, 404);
    assert.match(err.message, /refused the request \(HTTP 404\): The model `no-such-model` does not exist/);
    return true;
  });
});

test('a prompt longer than the context is a ContextLengthExceededError (a task outcome, not an outage)', async () => {
  await assert.rejects(
    client().complete({ promptTokenIds: new Array(190).fill(101), maxTokens: 20 }),
    (err: unknown) => {
      assert.ok(err instanceof ContextLengthExceededError);
      assert.match(err.message, /maximum context length is 200 tokens/);
      return true;
    },
  );
});

test('a server that does not answer in time is an InfrastructureError', async () => {
  const silent = http.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const policy = new PolicyClient(PolicyClientConfig.parse({ baseUrl: url, model: 'm', timeoutMs: 150 }));
    await assert.rejects(
      policy.complete({ promptTokenIds: [1] }),
      (err: unknown) => err instanceof InfrastructureError && /timed out after 150 ms/.test(err.message),
    );
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test('client config is validated by zod with defaults', () => {
  const config = PolicyClientConfig.parse({ baseUrl: 'http://127.0.0.1:8000', model: 'Qwen/Qwen3-0.6B' });
  assert.deepEqual(config.sampling, { maxTokens: 1024, temperature: 1, topP: 1, stop: [] });
  assert.equal(config.family, undefined); // chosen by the model check at campaign start
  assert.equal(chatFamily(config), 'qwen3');
  assert.throws(() => PolicyClientConfig.parse({ baseUrl: 'not a url', model: 'x' }), /baseUrl/);
  assert.throws(
    () => PolicyClientConfig.parse({ baseUrl: 'http://h', model: 'x', sampling: { temperature: -1 } }),
    /temperature/,
  );
});

test("the workflow's policy version goes out as cache_salt and stamps every sample; vLLM reports none", async () => {
  const vllm = await new FakeVllmServer({ respond: () => 'ok' }).start();
  try {
    const config = PolicyClientConfig.parse({ baseUrl: vllm.url, model: vllm.model, serverKind: 'vllm' });
    const published = await new PolicyClient(config, { policyVersion: '4' }).complete({ promptTokenIds: [101] });
    assert.equal(vllm.requests.at(-1)!.body.cache_salt, 'policy-4');
    assert.equal(published.policyVersion, '4');
    await new PolicyClient(config).complete({ promptTokenIds: [101] });
    assert.equal('cache_salt' in vllm.requests.at(-1)!.body, false, 'no version known: no salt');
  } finally {
    await vllm.stop();
  }
});

test('finish_reason "abort" (vLLM paused or shutting down mid-request) is an InfrastructureError: retried, never scored', async () => {
  server.abortNext();
  await assert.rejects(
    client().complete({ promptTokenIds: [101], maxTokens: 64 }),
    (err: unknown) => err instanceof InfrastructureError && /aborted the request/.test(err.message),
  );
  assert.equal(
    (await client().complete({ promptTokenIds: [101], maxTokens: 64 })).finishReason,
    'stop',
    'the retry is answered',
  );
});

test('a server reporting another policy version than the workflow published is an InfrastructureError', async () => {
  await assert.rejects(
    new PolicyClient(PolicyClientConfig.parse({ baseUrl: server.url, model: server.model }), {
      policyVersion: '4',
    }).complete({ promptTokenIds: [101], maxTokens: 8 }),
    (err: unknown) =>
      err instanceof InfrastructureError &&
      /serves policy version step-3, but the workflow published 4/.test(err.message),
  );
});

test("vLLM's wording of both context refusals is a ContextLengthExceededError", async () => {
  for (const [promptLength, maxTokens] of [
    [190, 20],
    [200, 1],
  ] as const) {
    await assert.rejects(
      client().complete({ promptTokenIds: new Array(promptLength).fill(101), maxTokens }),
      (err: unknown) => {
        assert.ok(err instanceof ContextLengthExceededError, String(err));
        return true;
      },
    );
  }
  assert.match(
    String(
      await client()
        .complete({ promptTokenIds: new Array(190).fill(101), maxTokens: 20 })
        .catch((e: Error) => e.message),
    ),
    /'max_tokens' or 'max_completion_tokens' is too large: 20/,
  );
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createTrainingActivities } from '../../activities/training.js';
import { InfrastructureError } from '../../core/errors.js';
import {
  ContextLengthExceededError,
  EndpointRequestError,
  isContextLengthMessage,
} from '../../runtime/clients/errors.js';
import { defaultPublishOptions, publishCheckpoint } from '../../runtime/clients/policy-admin.js';
import { fingerprintDiff, fingerprintOf } from '../../runtime/clients/fingerprint.js';
import { PolicyClient, type PolicyClientOptions } from '../../runtime/clients/policy-client.js';
import { chatFamily, PolicyClientConfig, type PolicyClientConfigInput } from '../../schemas/clients.js';
import { servedFingerprintUri, ServedFingerprints } from '../../schemas/policy-api.js';
import type { ArtifactStore } from '../../storage/artifacts.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { buildTinyModel, freezeMidGeneration, lockVllm, suiteVllm, type VllmTarget } from '../helpers/vllm.js';
import { FakeVllmServer, IM_END_ID } from './fake-vllm-server.js';
import { maxModelLength, measureSpeed, serversShorterThan } from '../../cli/campaign-start/serving-plan.js';

// The policy client against real vLLM (the suite's CPU build, a tiny random Qwen3, test/helpers/vllm.ts), through a
// proxy that records each request and answer and injects 5xx and 429 answers.

let vllm: VllmTarget & { close(): Promise<void> };
let release: () => Promise<void>;
let proxy: FaultProxy;

before(async () => {
  vllm = await suiteVllm();
  release = (await lockVllm(vllm)).release;
});
after(async () => {
  await proxy?.stop();
  await release?.();
  await vllm?.close();
});
beforeEach(async () => {
  await proxy?.stop();
  proxy = await new FaultProxy(vllm.url).start();
});

const client = (
  overrides: Partial<PolicyClientConfigInput> = {},
  policyVersion?: string,
  options: PolicyClientOptions = {},
) =>
  new PolicyClient(
    PolicyClientConfig.parse({
      baseUrl: proxy.url,
      model: vllm.model,
      serverKind: 'vllm',
      timeoutMs: 30_000,
      ...overrides,
    }),
    { ...(policyVersion === undefined ? {} : { policyVersion }), ...options },
  );
const completions = () => proxy.requests.filter((r) => r.path === '/v1/completions');
const setWeightVersion = (version: string) =>
  fetch(`${vllm.url}/update_weight_version`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ new_version: version }),
  });
/** Whether `promise` has settled, without waiting for it. */
const settled = (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setImmediate(() => r(false)))]);
/** A completion long enough to still run while the test acts on the server; abandoned when `signal` fires. */
const longCompletion = (signal?: AbortSignal) => client().complete({ promptTokenIds: [5], maxTokens: 480 }, signal);

test('complete() sends token ids with the sampling parameters and returns ids, logprobs and usage exactly as served', async () => {
  const prompt = await client().tokenize(
    `<|im_start|>user\n${'Cancel order 1042 please. '.repeat(30)}<|im_end|>\n<|im_start|>assistant\n`,
  );
  assert.ok(prompt.length > 128 && prompt.length < 500, `${prompt.length} tokens: more than one KV block (128 here)`);
  const completion = await client({ sampling: { maxTokens: 12, temperature: 0.7, seed: 11, stop: ['###'] } }).complete({
    promptTokenIds: prompt,
  });
  const [sent] = completions();
  const body = sent!.body as Record<string, unknown>;
  assert.deepEqual(body.prompt, prompt);
  assert.deepEqual(
    [body.max_tokens, body.temperature, body.seed, body.stop, body.logprobs, body.return_token_ids],
    [12, 0.7, 11, ['###'], 0, true],
  );
  assert.equal('cache_salt' in body, false, 'no version known: no salt');
  const answer = sent!.response as {
    choices: Array<{ token_ids: number[]; text: string; logprobs: { token_logprobs: number[] } }>;
    usage: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details: { cached_tokens: number } };
  };
  assert.deepEqual(completion.tokenIds, answer.choices[0]!.token_ids);
  assert.deepEqual(completion.logprobs, answer.choices[0]!.logprobs.token_logprobs);
  assert.equal(completion.text, answer.choices[0]!.text);
  assert.deepEqual(completion.usage, {
    inputTokens: prompt.length,
    cachedInputTokens: answer.usage.prompt_tokens_details.cached_tokens,
    outputTokens: answer.usage.completion_tokens,
  });
  const again = await client({ sampling: { maxTokens: 12, temperature: 0.7, seed: 11, stop: ['###'] } }).complete({
    promptTokenIds: prompt,
  });
  assert.deepEqual(again.tokenIds, completion.tokenIds, 'the same seed samples the same tokens');
  assert.ok(again.usage.cachedInputTokens >= 128, 'the second prompt hit the prefix cache, whole blocks of it');
});

test('a request can override the configured sampling; max_tokens cuts the turn with finishReason "length"', async () => {
  const completion = await client().complete({ promptTokenIds: [5, 9, 20], maxTokens: 5, seed: 2 });
  assert.equal(completion.finishReason, 'length');
  assert.equal(completion.tokenIds.length, 5);
  assert.equal((completions()[0]!.body as { max_tokens: number }).max_tokens, 5);
});

test('the end-of-turn token ends the turn: in token_ids, and (vLLM 0.32.0 with special tokens kept) in the text', async () => {
  const [imEnd] = await client().tokenize('<|im_end|>');
  const response = await fetch(`${vllm.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: vllm.model,
      prompt: [5, 9],
      max_tokens: 8,
      logprobs: 0,
      return_token_ids: true,
      skip_special_tokens: false,
      include_stop_str_in_output: true,
      logit_bias: { [String(imEnd)]: 100 },
    }),
  });
  const choice = ((await response.json()) as { choices: Array<Record<string, unknown>> }).choices[0]!;
  assert.deepEqual([choice.token_ids, choice.text, choice.finish_reason], [[imEnd], '<|im_end|>', 'stop']);
});

test('token ids are also read from servers that only return them as "token_id:<id>" logprob tokens (vLLM before 0.10.2)', async () => {
  // The fake copies the older answer, which vLLM 0.32.0 cannot be made to give: it always adds token_ids.
  const legacy = await new FakeVllmServer({ respond: () => 'ok', legacyTokenIds: true }).start();
  try {
    const policy = new PolicyClient(PolicyClientConfig.parse({ baseUrl: legacy.url, model: legacy.model }));
    const completion = await policy.complete({ promptTokenIds: [101] });
    assert.deepEqual(completion.tokenIds, [...legacy.tokenize('ok'), IM_END_ID]);
  } finally {
    await legacy.stop();
  }
});

test('tokenize and detokenize go through the server, without special tokens added', async () => {
  const policy = client();
  const text = '<|im_start|>user\ncafé\n\nbye<|im_end|>';
  const ids = await policy.tokenize(text);
  assert.equal((proxy.requests.at(-1)!.body as { add_special_tokens: boolean }).add_special_tokens, false);
  assert.equal(ids.filter((id) => id === ids[0]).length, 1, '<|im_start|> is one control token');
  assert.equal(await policy.detokenize(ids), text);
  assert.equal(policy.contextLength(), 512);
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
  proxy.failNext('/v1/completions', 503);
  proxy.failNext('/detokenize', 429);
  await assert.rejects(
    client().complete({ promptTokenIds: [1] }),
    (err: unknown) =>
      err instanceof InfrastructureError && /answered HTTP 503: injected by the test proxy/.test(err.message),
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
    client().complete({ promptTokenIds: new Array(520).fill(101), maxTokens: 20 }),
    (err: unknown) => {
      assert.ok(err instanceof ContextLengthExceededError);
      assert.match(err.message, /maximum context length is 512 tokens/);
      return true;
    },
  );
});

test('a prompt that fits but leaves less room than max_tokens: vLLM 0.32.0 shortens the turn ("length") instead of refusing', async () => {
  // The tiny random model samples its end-of-turn token now and then; a turn it ended early is sampled again.
  let completion;
  for (let attempt = 1; attempt <= 5 && completion?.finishReason !== 'length'; attempt++) {
    completion = await client().complete({ promptTokenIds: new Array(505).fill(101), maxTokens: 20 });
    assert.ok(completion.tokenIds.length <= 7, `${completion.tokenIds.length} tokens: more than the 7 left`);
  }
  assert.equal(completion!.finishReason, 'length');
  assert.equal(completion!.tokenIds.length, 7);
});

test("the context refusals' wordings of vLLM 0.32.0 and of older versions are recognised", () => {
  for (const message of [
    "This model's maximum context length is 512 tokens. However, your prompt contains 594 input tokens, which exceeds this limit even without any output tokens.",
    "'max_tokens' or 'max_completion_tokens' is too large: 20. This model's maximum context length is 200 tokens and your request has 190 input tokens (20 > 200 - 190).",
  ])
    assert.ok(isContextLengthMessage(message), message);
  assert.equal(isContextLengthMessage('max_tokens=600 cannot be greater than max_model_len=512.'), false);
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

test("the workflow's version goes out as cache_salt; vLLM confirms it on /weight_info before and after, and every sample carries it", async () => {
  assert.equal((await setWeightVersion('4')).status, 200);
  const published = await client({}, '4').complete({ promptTokenIds: [5, 9], maxTokens: 3 });
  assert.deepEqual(proxy.paths(), ['/weight_info', '/v1/completions', '/weight_info']);
  assert.equal((completions()[0]!.body as { cache_salt: string }).cache_salt, 'policy-4');
  assert.equal(published.policyVersion, '4');
  const unversioned = await client().complete({ promptTokenIds: [5, 9], maxTokens: 3 });
  assert.equal(unversioned.policyVersion, '4', "no version known: the server's report");
});

test('a weight version that changes while the completion runs (a publish in between) is an InfrastructureError', async () => {
  assert.equal((await setWeightVersion('4')).status, 200);
  // The completion is held at the proxy, after the client read version 4, until the version has changed: the change
  // falls between the client's two reads whatever the model's speed.
  let letGo!: () => void;
  proxy.hold('/v1/completions', new Promise<void>((resolve) => (letGo = resolve)));
  const running = client({}, '4')
    .complete({ promptTokenIds: [5], maxTokens: 4 })
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  while (proxy.inFlight('/v1/completions') === 0) await new Promise((r) => setTimeout(r, 10));
  assert.equal((await setWeightVersion('5')).status, 200);
  letGo();
  const failure = await running;
  assert.ok(failure instanceof InfrastructureError, String(failure));
  assert.match(failure.message, /changed weight version from 4 to 5 while it served the completion/);
});

test("the episode's window: any version inside [minVersion, version] serves and is recorded; behind it the server is taken out, ahead of it not", async () => {
  const reports: string[] = [];
  const window = (min: string, max: string) =>
    client({}, max, {
      minVersion: min,
      reports: { served: (v) => reports.push(`served ${v}`), failed: (_, floor) => reports.push(`out until ${floor}`) },
    }).complete({ promptTokenIds: [5, 9], maxTokens: 3 });
  assert.equal((await setWeightVersion('3')).status, 200);
  const inside = await window('2', '4');
  assert.equal(inside.policyVersion, '3', 'the version that served, not the newest accepted');
  assert.equal(
    (completions().at(-1)!.body as { cache_salt: string }).cache_salt,
    'policy-3',
    'salted per served version',
  );
  await assert.rejects(
    window('4', '5'),
    /serves policy version 3, outside the episode's window 4\.\.5 \(a server that restarted/,
  );
  await assert.rejects(
    window('1', '2'),
    /serves policy version 3, outside the episode's window 1\.\.2 \(a newer policy/,
  );
  assert.equal((await setWeightVersion('default')).status, 200);
  assert.equal((await window('0', '1')).policyVersion, 'default', 'a window that holds the base accepts "default"');
  await assert.rejects(window('1', '2'), (err: unknown) => err instanceof InfrastructureError);
  assert.deepEqual(reports, ['served 3', 'out until 4', 'served 0', 'out until 1']);
});

test('a publish with vLLM 0.32 pause mode=wait: a turn in flight finishes on the old version; one sent meanwhile waits and gets the new one', async (t) => {
  assert.deepEqual(
    await (await fetch(`${vllm.url}/pause?mode=keep`, { method: 'POST' })).json(),
    { status: 'paused' },
    'vLLM 0.32 has the modes abort, wait and keep (keep freezes requests mid-completion: they would end on other weights)',
  );
  assert.equal((await fetch(`${vllm.url}/resume`, { method: 'POST' })).status, 200);
  assert.equal((await setWeightVersion('5')).status, 200);
  const windowed = () => client({}, '6', { minVersion: '5' });
  // The turn in flight: caught running by a freeze of the scheduler (pause mode=keep), which vLLM's own count confirms
  // (test/helpers/vllm.ts); the publish's pause (mode=wait) then lets it run on, whatever the model's speed.
  const caught = await freezeMidGeneration(vllm.url, () =>
    windowed().complete({ promptTokenIds: [5], maxTokens: 480 }),
  );
  const inFlight = caught.answer;
  t.diagnostic(`caught running after ${caught.sent} completion(s) and ${caught.freezes} freeze(s)`);
  assert.equal(await settled(inFlight), false, 'frozen mid-generation: no answer yet');
  // The reload waits until the test lets it go: the server stays paused, reporting "reloading-6", meanwhile.
  let reload!: () => void;
  const publisher = await new FaultProxy(vllm.url).start();
  publisher.hold('/collective_rpc', new Promise<void>((resolve) => (reload = resolve)));
  const sentMeanwhile: Array<Promise<unknown>> = [];
  const publish = publishCheckpoint({ url: publisher.url, kind: 'vllm' }, vllm.weightsDir, 6, {
    ...defaultPublishOptions,
    onStep: (step) => {
      if (step !== 'reload_weights') return;
      // Caught here, awaited below: a rejection must fail the assertions, not escape the test.
      const caught = <T>(p: Promise<T>) => p.catch((err: unknown) => err);
      sentMeanwhile.push(
        caught(windowed().complete({ promptTokenIds: [5, 9], maxTokens: 3 })),
        caught(
          fetch(`${proxy.url}/v1/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: vllm.model, prompt: [5, 9, 9], max_tokens: 3 }),
          }).then(async (r) => [
            r.status,
            ((await r.json()) as { choices: Array<{ finish_reason: string }> }).choices[0]!.finish_reason,
          ]),
        ),
      );
    },
  });
  try {
    assert.equal((await inFlight).policyVersion, '5', 'the turn in flight finished on the weights it started with');
    // Both sent while paused: the raw request reached vLLM, and the client read "reloading-6" more than once.
    const reloading = () =>
      proxy.requests.filter(
        (r) => (r.response as { weight_version?: string } | undefined)?.weight_version === 'reloading-6',
      );
    const rawArrived = () =>
      proxy.requests.some((r) => JSON.stringify((r.body as { prompt?: unknown } | undefined)?.prompt) === '[5,9,9]');
    while (!rawArrived() || reloading().length < 2) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await Promise.all(sentMeanwhile.map(settled)), [false, false], 'both wait while paused');
    reload();
    await publish;
    const [late, raw] = await Promise.all(sentMeanwhile);
    assert.equal((late as { policyVersion: string }).policyVersion, '6', 'the next turn records the new version');
    const [status, finish] = raw as [number, string];
    assert.equal(status, 200);
    assert.notEqual(finish, 'abort', 'served after /resume, never aborted');
  } finally {
    reload();
    await publish.catch(() => undefined);
    await publisher.stop();
  }
});

test('finish_reason "abort" (vLLM paused with mode=abort, or shutting down, mid-request) is an InfrastructureError: retried, never scored', async () => {
  // No completion can end on its own here: the scheduler is paused first (mode=keep: nothing is stepped), so the
  // completion waits in vLLM's queue once it gets there, and /pause?mode=abort, which ends every request vLLM holds
  // (running or queued), is repeated until the completion has its answer. Whatever the model's speed, that answer is
  // the abort. The server resumes once the completion is answered.
  const aborted = (err: unknown) => err instanceof InfrastructureError && /aborted the request/.test(err.message);
  assert.equal((await fetch(`${vllm.url}/pause?mode=keep`, { method: 'POST' })).status, 200);
  let failure: unknown;
  try {
    const running = longCompletion().then(
      () => undefined,
      (err: unknown) => err,
    );
    while (!(await settled(running))) {
      assert.equal((await fetch(`${vllm.url}/pause?mode=abort`, { method: 'POST' })).status, 200);
      await new Promise((r) => setTimeout(r, 20));
    }
    failure = await running;
  } finally {
    assert.equal((await fetch(`${vllm.url}/resume`, { method: 'POST' })).status, 200);
  }
  assert.ok(aborted(failure), String(failure));
  const answers = completions().map((r) => r.response as { choices?: Array<{ finish_reason: string }> });
  assert.deepEqual(
    answers.map((a) => a.choices?.[0]?.finish_reason),
    ['abort'],
    'vLLM answered finish_reason "abort"',
  );
  assert.equal(
    (await client().complete({ promptTokenIds: [5], maxTokens: 4 })).finishReason,
    'length',
    'the retry is answered',
  );
});

// A vLLM whose /weight_info the rollout workers cannot reach: the proxy stands in for a gateway that forwards only the
// OpenAI routes. The publisher reaches the server itself (its admin routes), as in a deployment.
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-fingerprint-'));
after(() => fs.rmSync(workDir, { recursive: true, force: true }));
const behindGateway = () => proxy.block('/weight_info');
const sampled = () =>
  completions().filter((r) => (r.body as { prompt_logprobs?: number }).prompt_logprobs === undefined);
const { publishPolicy } = createTrainingActivities({ artifacts: {} as ArtifactStore, publish: defaultPublishOptions });

test('behind a gateway without /weight_info, the fingerprint the publisher measured confirms the version; weights changed behind the client are refused', async (t) => {
  // Version 1: a tiny model of another seed, published by the publishing activity, which leaves the fingerprint in it.
  const checkpoint = buildTinyModel(path.join(workDir, 'version-1'), 7);
  const checkpointUri = pathToFileURL(checkpoint).href;
  await new MockActivityEnvironment().run(publishPolicy, {
    checkpointUri,
    version: 1,
    servers: [{ url: vllm.url, kind: 'vllm' as const }],
    previous: { checkpointUri: vllm.weightsDir, version: 0 },
  });
  const published = ServedFingerprints.parse(
    JSON.parse(fs.readFileSync(path.join(checkpoint, 'served-fingerprint.json'), 'utf8')),
  );
  assert.equal(published.policyVersion, '1');
  assert.equal(published.servers[0]!.url, vllm.url);

  behindGateway();
  const policy = client({}, '1', { fingerprintUri: servedFingerprintUri(checkpointUri) });
  const first = await policy.complete({ promptTokenIds: [5, 9], maxTokens: 3 });
  assert.equal(first.policyVersion, '1');
  assert.deepEqual(proxy.paths(), ['/weight_info', '/v1/completions', '/v1/completions', '/v1/completions']);
  assert.deepEqual(
    completions().map((r) => (r.body as { prompt_logprobs?: number }).prompt_logprobs),
    [0, undefined, 0],
    'fingerprint, completion, fingerprint',
  );
  assert.equal((await policy.complete({ promptTokenIds: [5, 9], maxTokens: 3 })).policyVersion, '1');
  assert.equal(completions().length, 5, "the last completion's fingerprint is the next one's: one more each");
  const measured = completions()
    .filter((r) => (r.body as { prompt_logprobs?: number }).prompt_logprobs === 0)
    .map((r) => fingerprintOf(proxy.url, r.response).logprobs);
  const same = Math.max(...measured.map((m) => fingerprintDiff(m, published.servers[0]!.fingerprint.logprobs)));
  t.diagnostic(`version 1 served: max |diff| to the publisher's fingerprint ${same.toExponential(2)}`);

  // The server comes back on the base weights behind the client's back (as a restarted vLLM would).
  await publishCheckpoint({ url: vllm.url, kind: 'vllm' }, vllm.weightsDir, 0, defaultPublishOptions);
  const refused = await policy.complete({ promptTokenIds: [5, 9], maxTokens: 3 }).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(refused instanceof InfrastructureError, String(refused));
  assert.ok(
    refused.message.startsWith(`policy-server at ${proxy.url} does not serve policy version 1:`),
    refused.message,
  );
  const diff = Number(/max \|diff\| (\S+) \(tolerance 1e-4\)/.exec(refused.message)?.[1]);
  assert.ok(diff > 1e-4, `${diff}`);
  t.diagnostic(`base weights served: max |diff| ${diff.toExponential(2)}`);
  assert.equal(sampled().length, 3, 'the base weights answered the third completion, which was not returned');
  assert.equal(sampled().at(-1)!.status, 200);

  // A fresh client (a retried episode) refuses before it samples anything.
  const before = sampled().length;
  await assert.rejects(
    client({}, '1', { fingerprintUri: servedFingerprintUri(checkpointUri) }).complete({ promptTokenIds: [5] }),
    (err: unknown) => err instanceof InfrastructureError && /does not serve policy version 1/.test(err.message),
  );
  assert.equal(sampled().length, before);
});

test("behind a gateway without /weight_info and without the version's fingerprint, the client fails as a configuration error", async () => {
  behindGateway();
  await assert.rejects(
    client({}, '1').complete({ promptTokenIds: [5] }),
    (err: unknown) =>
      err instanceof EndpointRequestError &&
      /has no \/weight_info/.test(err.message) &&
      /checked by its served fingerprint instead \(the episode's policy names none\)/.test(err.message),
  );
  const missing = pathToFileURL(path.join(workDir, 'nowhere', 'served-fingerprint.json')).href;
  await assert.rejects(
    client({}, '1', { fingerprintUri: missing }).complete({ promptTokenIds: [5] }),
    (err: unknown) =>
      err instanceof EndpointRequestError &&
      err.message.includes(`the fingerprint of version 1 cannot be read from ${missing} (ENOENT)`),
  );
  assert.equal(completions().length, 0, 'nothing sampled');
});

test("campaign start's context check: vLLM's max_model_len below limits.maxContextTokens is named, with both settings to change", async () => {
  const server = { url: vllm.url, kind: 'vllm' as const };
  const length = await maxModelLength(server);
  assert.equal(length, 512, "the suite's tiny model: 512 positions");
  assert.deepEqual(await serversShorterThan([server], 512), []);
  const [problem, ...rest] = await serversShorterThan([server, { url: 'http://127.0.0.1:9', kind: 'vllm' }], 8192);
  assert.deepEqual(rest, [], 'a server that does not answer is left to the fleet');
  assert.equal(
    problem,
    `policy server ${vllm.url} holds 512 tokens of context (max_model_len), below limits.maxContextTokens 8192: lower limits.maxContextTokens to 512 or start the server with --max-model-len 8192 or more`,
  );
});

test('the serving speed campaign start measures: a prefill and a decode rate from two greedy completions', async () => {
  const speed = await measureSpeed({ url: vllm.url, kind: 'vllm' }, vllm.model, { promptTokens: 64, decodeTokens: 8 });
  assert.ok(speed.prefillTokensPerSecond > 0 && Number.isFinite(speed.prefillTokensPerSecond), JSON.stringify(speed));
  assert.ok(speed.decodeTokensPerSecond > 0 && Number.isFinite(speed.decodeTokensPerSecond), JSON.stringify(speed));
});

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { ContextLengthExceededError } from '../../runtime/clients/errors.js';
import { PolicyClient } from '../../runtime/clients/policy-client.js';
import { qwen3Renderer, toolResultTurn } from '../../runtime/interpreter/index.js';
import { CompletionsAgentPolicy } from '../../runtime/policy/completions-policy.js';
import { PolicyClientConfig } from '../../schemas/clients.js';
import type { Conversation } from '../../schemas/conversation.js';
import { Trajectory } from '../../schemas/trajectory.js';
import { trainingColumns } from '../../runtime/trajectory/truncation.js';
import { FakeVllmServer, IM_END_ID, type ToyModelInput } from './fake-vllm-server.js';
import { tools } from './fixtures.js';

/** Toy model: look the order up, then report what the tool said; answer thanks politely. */
function toyAgent({ prompt }: ToyModelInput): string {
  const lastTurn = prompt.slice(prompt.lastIndexOf('<|im_start|>user'));
  if (lastTurn.includes('Thanks')) return "<think>\n\n</think>\n\nYou're welcome.";
  if (lastTurn.includes('<tool_response>')) {
    const result = lastTurn.slice(lastTurn.indexOf('<tool_response>\n') + 16, lastTurn.indexOf('\n</tool_response>'));
    return `<think>\nThe tool answered.\n</think>\n\nYour order: ${result}`;
  }
  return '<think>\nI need the order first.\n</think>\n\nLet me check.\n<tool_call>\n{"name": "find_order", "arguments": {"order_id": "ORD-7"}}\n</tool_call>';
}

const servers: FakeVllmServer[] = [];
async function startPolicy(options: Partial<ConstructorParameters<typeof FakeVllmServer>[0]> = {}) {
  const server = await new FakeVllmServer({ respond: toyAgent, policyVersion: 'v1', ...options }).start();
  servers.push(server);
  const client = new PolicyClient(
    PolicyClientConfig.parse({ baseUrl: server.url, model: server.model, sampling: { maxTokens: 256, seed: 5 } }),
  );
  return { server, policy: new CompletionsAgentPolicy(client, qwen3Renderer) };
}
after(() => Promise.all(servers.map((s) => s.stop())));

/** Drive a short episode by hand: query, tool call, tool result, report, thanks, reply. */
async function runEpisode(policy: CompletionsAgentPolicy, toolText: string) {
  const conversation: Conversation = {
    system: 'You are a support agent.',
    tools,
    turns: [{ role: 'user', content: 'Where is my order ORD-7?' }],
  };
  const first = await policy.next(conversation);
  assert.deepEqual(first.failures, []);
  assert.deepEqual(first.calls, [{ tool: 'find_order', arguments: { order_id: 'ORD-7' } }]);
  conversation.turns.push(first.turn, toolResultTurn({ content: [{ type: 'text', text: toolText }] }));
  const second = await policy.next(conversation);
  assert.deepEqual(second.calls, []);
  conversation.turns.push(second.turn, { role: 'user', content: 'Thanks!' });
  const third = await policy.next(conversation);
  conversation.turns.push(third.turn);
  return {
    conversation,
    steps: [first, second, third],
    trajectory: Trajectory.parse(await policy.finish(conversation)),
  };
}

test('token in, token out: sampled ids and logprobs are kept as served, observations are masked, and the text matches', async () => {
  const { server, policy } = await startPolicy();
  const { conversation, steps, trajectory } = await runEpisode(policy, '{"id": "ORD-7", "status": "shipped"}');
  assert.equal(steps[1]!.turn.content, 'Your order: {"id": "ORD-7", "status": "shipped"}');
  assert.equal(trajectory.drift, null);
  assert.equal(trajectory.trainable, true);
  assert.deepEqual(trajectory.policyVersions, ['v1']);

  const completions = server.requests.filter((r) => r.path === '/v1/completions');
  const samples = trajectory.segments.filter((s) => s.kind === 'sample');
  assert.equal(samples.length, 3);
  samples.forEach((segment, turn) => {
    // The prompt of each turn is the trajectory itself, up to the sample.
    assert.deepEqual(completions[turn]!.body.prompt, trajectory.tokenIds.slice(0, segment.start));
    assert.equal(completions[turn]!.body.seed, 5 + turn);
    const ids = trajectory.tokenIds.slice(segment.start, segment.end);
    assert.equal(ids.at(-1), IM_END_ID, 'the end-of-turn token the model sampled is trained on');
    assert.equal(server.detokenize(ids.slice(0, -1)), steps[turn]!.turn.raw!.replace(/<\|im_end\|>$/, ''));
    ids.forEach((id, i) => {
      assert.equal(trajectory.lossMask[segment.start + i], 1);
      assert.equal(
        trajectory.rolloutLogprobs[segment.start + i],
        FakeVllmServer.logprob(5 + turn, segment.start + i, id),
      );
    });
  });
  const sampled = new Set(samples.flatMap((s) => Array.from({ length: s.end - s.start }, (_, i) => s.start + i)));
  trajectory.tokenIds.forEach((_, i) => {
    if (!sampled.has(i)) {
      assert.equal(trajectory.lossMask[i], 0);
      assert.equal(trajectory.rolloutLogprobs[i], 0);
    }
  });
  assert.equal(
    trajectory.lossMask.filter((m) => m === 1).length,
    steps.reduce((n, step) => n + step.usage.outputTokens, 0),
  );

  // The tokens spell the rendered conversation, although retokenising that text would give other ids:
  // the model sampled "\n\n" as two tokens where the tokenizer merges them.
  const rendered = qwen3Renderer.renderConversation(conversation);
  const spelled = server.detokenize(trajectory.tokenIds);
  assert.ok(rendered.startsWith(spelled) && rendered.slice(spelled.length) === '\n');
  assert.notDeepEqual(server.tokenize(spelled), trajectory.tokenIds);
});

test('a turn cut off at maxTokens is a length sample, and trainingColumns takes exactly its tokens out of the loss', async () => {
  const server = await new FakeVllmServer({
    respond: () => 'Checking ORD-7 ORD-7 ORD-7 ORD-7 ORD-7 ORD-7 ORD-7',
    policyVersion: 'v1',
  }).start();
  servers.push(server);
  const client = new PolicyClient(
    PolicyClientConfig.parse({ baseUrl: server.url, model: server.model, sampling: { maxTokens: 5, seed: 5 } }),
  );
  const policy = new CompletionsAgentPolicy(client, qwen3Renderer);
  const conversation: Conversation = {
    system: 'You are a support agent.',
    tools,
    turns: [{ role: 'user', content: 'Where is ORD-7?' }],
  };
  const step = await policy.next(conversation);
  conversation.turns.push(step.turn);
  const trajectory = Trajectory.parse(await policy.finish(conversation));
  assert.equal(trajectory.trainable, true);
  const cut = trajectory.segments.find((s) => s.kind === 'sample')!;
  assert.equal(cut.finishReason, 'length');
  assert.equal(cut.end - cut.start, 5);

  const before = structuredClone(trajectory);
  const kept = trainingColumns(trajectory, 0);
  assert.deepEqual(
    [kept.lossMask, kept.rolloutLogprobs, kept.truncatedTurns, kept.maskedTokens],
    [trajectory.lossMask, trajectory.rolloutLogprobs, 1, 0],
  );
  const masked = trainingColumns(trajectory, 0, { maskTruncatedTurns: true });
  assert.deepEqual(trajectory, before, 'the trajectory itself is left as sampled');
  assert.equal(masked.maskedTokens, 5);
  assert.equal(
    masked.lossMask.reduce((n, m) => n + m, 0),
    trajectory.lossMask.reduce((n, m) => n + m, 0) - 5,
  );
  for (let i = cut.start; i < cut.end; i += 1)
    assert.deepEqual([masked.lossMask[i], masked.rolloutLogprobs[i]], [0, 0]);
});

test('trainingColumns gives each token the version of the policy that sampled it, -1 where none did', () => {
  const at = (start: number, end: number) => ({ start, end, textStart: start, textEnd: end });
  const columns = trainingColumns(
    {
      lossMask: [0, 0, 1, 1, 0, 1, 1, 0, 1],
      rolloutLogprobs: [0, 0, -1, -1, 0, -1, -1, 0, -1],
      segments: [
        { kind: 'observation', ...at(0, 2) },
        { kind: 'sample', ...at(2, 4), policyVersion: '3', finishReason: 'stop' },
        { kind: 'observation', ...at(4, 5) },
        { kind: 'sample', ...at(5, 7), policyVersion: '4', finishReason: 'length' },
        { kind: 'observation', ...at(7, 8) },
        { kind: 'sample', ...at(8, 9), policyVersion: 'default', finishReason: 'stop' },
      ],
    },
    1,
    { maskTruncatedTurns: true },
  );
  // A publish between the turns: versions 3 then 4. A cut-off turn leaves the loss but keeps its version; a server
  // that still serves the weights it started with reports "default", the base policy 0.
  assert.deepEqual(columns.rolloutVersions, [-1, -1, 3, 3, -1, 4, 4, -1, 0]);
  assert.deepEqual(columns.lossMask, [0, 0, 1, 1, 0, 0, 0, 0, 1]);
});

test('the drift check catches a planted retokenisation mismatch and excludes the episode from training', async () => {
  const { policy } = await startPolicy({ unknownChars: ['☕'] });
  const { conversation, trajectory } = await runEpisode(policy, 'Your coffee ☕ order has shipped.');
  assert.ok(trajectory.drift);
  assert.equal(trajectory.trainable, false);
  const rendered = qwen3Renderer.renderConversation(conversation);
  assert.equal(trajectory.drift.index, rendered.indexOf('☕'));
  assert.ok(trajectory.drift.expected.includes('coffee ☕ order'));
  assert.ok(trajectory.drift.actual.includes('coffee \uFFFD order'));
  assert.equal(trajectory.segments[trajectory.drift.segment!]!.kind, 'observation');
});

test('history rendered differently from what was sampled is drift too (here: the raw model text was dropped)', async () => {
  const { policy } = await startPolicy({
    respond: () => '<tool_call>{"name":"find_order","arguments":{"order_id":"ORD-7"}}</tool_call>',
  });
  const conversation: Conversation = { system: '', tools, turns: [{ role: 'user', content: 'Where is ORD-7?' }] };
  const step = await policy.next(conversation);
  const { raw: _raw, ...rewritten } = step.turn;
  conversation.turns.push(rewritten, { role: 'tool', content: 'shipped' });
  await policy.next(conversation);
  const trajectory = await policy.finish(conversation);
  assert.ok(trajectory.drift);
  assert.equal(trajectory.segments[trajectory.drift.segment!]!.kind, 'sample');
  assert.match(trajectory.drift.expected, /<tool_call>\n\{"name": "find_order"/);
  assert.match(trajectory.drift.actual, /<tool_call>\{"name":"find_order"/);
});

test('a conversation outgrowing the context surfaces as ContextLengthExceededError', async () => {
  const { policy } = await startPolicy({ maxModelLen: 300 });
  const conversation: Conversation = {
    system: 'x'.repeat(400),
    tools: [],
    turns: [{ role: 'user', content: 'hello' }],
  };
  await assert.rejects(policy.next(conversation), ContextLengthExceededError);
});

test('the trajectory schema rejects misaligned arrays, gaps between segments and a trainable drifted episode', () => {
  const base = {
    tokenIds: [1, 2, 3],
    lossMask: [0, 1, 1],
    rolloutLogprobs: [0, -0.5, -0.1],
    segments: [
      { kind: 'observation', start: 0, end: 1, textStart: 0, textEnd: 1 },
      { kind: 'sample', start: 1, end: 3, textStart: 1, textEnd: 3, policyVersion: 'v1', finishReason: 'stop' },
    ],
    policyVersions: ['v1'],
    drift: null,
    trainable: true,
  };
  assert.ok(Trajectory.safeParse(base).success);
  assert.match(Trajectory.safeParse({ ...base, lossMask: [0, 1] }).error!.message, /one entry per token id/);
  assert.match(
    Trajectory.safeParse({ ...base, segments: [base.segments[1]] }).error!.message,
    /segment must start at token 0/,
  );
  assert.match(
    Trajectory.safeParse({ ...base, drift: { index: 0, segment: 0, expected: 'a', actual: 'b' } }).error!.message,
    /trainable must equal/,
  );
  assert.ok(
    !Trajectory.safeParse({ ...base, rolloutLogprobs: [0, 0.5, -0.1] }).success,
    'a logprob above 0 is not a logprob',
  );
});

test('an aborted turn (vLLM paused mid-request) adds nothing to the trajectory: the retried turn continues it exactly', async () => {
  const clean = await runEpisode((await startPolicy({ policyVersion: undefined })).policy, '{"status": "shipped"}');
  const { server, policy } = await startPolicy({ policyVersion: undefined });
  const conversation: Conversation = {
    system: 'You are a support agent.',
    tools,
    turns: [{ role: 'user', content: 'Where is my order ORD-7?' }],
  };
  const first = await policy.next(conversation);
  conversation.turns.push(first.turn, toolResultTurn({ content: [{ type: 'text', text: '{"status": "shipped"}' }] }));
  server.abortNext();
  await assert.rejects(
    policy.next(conversation),
    (err: unknown) => err instanceof InfrastructureError && /aborted/.test(err.message),
  );
  const second = await policy.next(conversation);
  conversation.turns.push(second.turn, { role: 'user', content: 'Thanks!' });
  conversation.turns.push((await policy.next(conversation)).turn);
  const trajectory = Trajectory.parse(await policy.finish(conversation));
  assert.deepEqual(trajectory.tokenIds, clean.trajectory.tokenIds);
  assert.deepEqual(trajectory.lossMask, clean.trajectory.lossMask);
  assert.equal(trajectory.drift, null);
});

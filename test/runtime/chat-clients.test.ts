import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { ChatClient } from '../../runtime/clients/chat-client.js';
import { EndpointRequestError } from '../../runtime/clients/errors.js';
import { LlmUserSimulator, personaPrompt } from '../../runtime/clients/llm-user.js';
import { failureFeedback } from '../../runtime/interpreter/index.js';
import { ChatAgentPolicy } from '../../runtime/policy/chat-policy.js';
import { ChatEndpointConfig, type ChatEndpointConfigInput } from '../../schemas/clients.js';
import type { Conversation } from '../../schemas/conversation.js';
import { FakeChatServer, type ChatRequestBody, type FakeChatReply } from './fake-chat-server.js';
import { tools } from './fixtures.js';

let script: (body: ChatRequestBody) => FakeChatReply = () => ({ content: 'ok' });
const server = new FakeChatServer((body) => script(body));
before(() => server.start());
after(() => server.stop());
const client = (component: string, overrides: Partial<ChatEndpointConfigInput> = {}) =>
  new ChatClient(
    ChatEndpointConfig.parse({ baseUrl: server.url, model: 'hosted-model', maxRetries: 0, ...overrides }),
    component,
  );

const task = {
  query: 'I want to return my headphones.',
  userContext: 'You bought headphones last week; they crackle. You prefer a refund over a replacement.',
  userFacts: { order_id: 'ORD-55' },
  userDecisions: { accept_replacement: false },
};

test('the LLM user gets a persona from query and private context, sees only visible text, and stops with the marker', async () => {
  const user = new LlmUserSimulator(client('user-simulator', { temperature: 0.3, seed: 9 }), task);
  assert.equal(user.opening().text, task.query);
  script = () => ({ content: 'Great, thanks! ###STOP###' });
  const reply = await user.reply([
    { from: 'user', text: task.query },
    { from: 'agent', text: 'Your refund is on its way.' },
  ]);
  assert.deepEqual([reply.text, reply.done, reply.model], ['Great, thanks!', true, 'hosted-model']);
  assert.deepEqual(reply.usage, { inputTokens: reply.usage.inputTokens, cachedInputTokens: 3, outputTokens: 7 });
  const sent = server.requests.at(-1)!;
  assert.equal(sent.temperature, 0.3);
  assert.equal(sent.seed, 9);
  assert.deepEqual(sent.messages.slice(1), [
    { role: 'assistant', content: task.query },
    { role: 'user', content: 'Your refund is on its way.' },
  ]);
  const persona = String(sent.messages[0]!.content);
  for (const expected of [
    task.userContext,
    'order_id: ORD-55',
    'accept_replacement: no',
    'Never invent facts',
    'only when the agent asks',
    '###STOP###',
  ]) {
    assert.ok(persona.includes(expected), `persona lacks ${expected}`);
  }
  assert.equal(persona, personaPrompt(task));
  script = () => ({ content: 'My order id is ORD-55.' });
  assert.deepEqual(await user.reply([{ from: 'agent', text: 'Which order?' }]).then((r) => [r.text, r.done]), [
    'My order id is ORD-55.',
    false,
  ]);
});

test('a hosted chat model as policy: interpreted by the provider, calls typed by our interpreter, tool ids paired', async () => {
  const policy = new ChatAgentPolicy(client('policy'));
  assert.equal(policy.interpretedBy, 'provider');
  const conversation: Conversation = {
    system: 'Support policy.',
    tools,
    turns: [{ role: 'user', content: 'Refund ORD-7 by 5 euros.' }],
  };
  script = () => ({
    content: null,
    reasoning_content: 'Need the order.',
    tool_calls: [
      { id: 'call_a', type: 'function', function: { name: 'find_order', arguments: '{"order_id": "ORD-7"}' } },
      {
        id: 'call_b',
        type: 'function',
        function: { name: 'refund_order', arguments: '{"order_id": "ORD-7", "amount_cents": "500"}' },
      },
    ],
  });
  const step = await policy.next(conversation);
  assert.deepEqual(step.failures, []);
  assert.deepEqual(step.calls, [
    { tool: 'find_order', arguments: { order_id: 'ORD-7' } },
    { tool: 'refund_order', arguments: { order_id: 'ORD-7', amount_cents: 500 } },
  ]);
  assert.equal(step.turn.reasoning, 'Need the order.');
  const sentTools = server.requests.at(-1)!.tools as Array<{ function: { name: string; parameters: unknown } }>;
  assert.deepEqual(
    sentTools.map((t) => t.function.parameters),
    tools.map((t) => t.inputSchema),
  );
  conversation.turns.push(step.turn, { role: 'tool', content: 'found' }, { role: 'tool', content: 'refunded' });

  script = () => ({
    tool_calls: [{ id: 'call_c', type: 'function', function: { name: 'refund_order', arguments: '{"order_id": ' } }],
  });
  const bad = await policy.next(conversation);
  assert.deepEqual(bad.calls, []);
  assert.equal(bad.failures[0]!.kind, 'bad_json');
  assert.deepEqual(
    server.requests
      .at(-1)!
      .messages.slice(2)
      .map((m) => [m.role, m.tool_call_id ?? null, m.content]),
    [
      ['assistant', null, null],
      ['tool', 'call_a', 'found'],
      ['tool', 'call_b', 'refunded'],
    ],
  );
  conversation.turns.push(bad.turn, failureFeedback(bad.failures));
  script = () => ({ content: 'Refunded 5 euros.' });
  const done = await policy.next(conversation);
  assert.equal(done.turn.content, 'Refunded 5 euros.');
  const last = server.requests.at(-1)!.messages.at(-1)!;
  assert.equal(last.tool_call_id, 'call_c', 'parse-failure feedback answers the malformed call');
  assert.match(String(last.content), /^Error: your last message could not be executed/);
  assert.equal(await policy.finish(), null);
});

test("call markup the provider left in the text (vLLM's hermes parser on invalid JSON) is fed back as a malformed call, not shown to the user", async () => {
  // The reply as vLLM 0.32.0 (--tool-call-parser hermes) gave it in the real-smoke campaign: the model wrote a
  // <tool_call> block that is not JSON, so the parser returned the whole text as content and no tool_calls.
  const policy = new ChatAgentPolicy(client('policy'));
  const conversation: Conversation = {
    system: 'Support policy.',
    tools,
    turns: [{ role: 'user', content: 'Refund ORD-7 by 5 euros.' }],
  };
  const markup = '<tool_call>\n{"name": "find_", "arguments": {"order_id": "ORD-7", "day": 33": 3"}}\n</tool_call>';
  script = () => ({ content: markup });
  const step = await policy.next(conversation);
  assert.deepEqual(step.calls, []);
  assert.equal(step.failures[0]?.kind, 'bad_json', JSON.stringify(step.failures));
  conversation.turns.push(step.turn, failureFeedback(step.failures));
  script = () => ({ content: 'Which order do you mean?' });
  const next = await policy.next(conversation);
  assert.deepEqual(next.failures, [], 'plain text stays a message to the user');
  assert.deepEqual(
    server.requests
      .at(-1)!
      .messages.slice(2)
      .map((m) => [m.role, m.content]),
    [
      ['assistant', markup],
      ['user', failureFeedback(step.failures).content],
    ],
  );

  script = () => ({ content: '<tool_call>\n{"name": "find_order", "arguments": {"order_id": "ORD-7"}}\n</tool_call>' });
  const unread = await policy.next({ ...conversation, turns: conversation.turns.slice(0, 1) });
  assert.deepEqual(unread.calls, [], 'a call is executed only when the provider returned it as one');
  assert.equal(unread.failures[0]?.kind, 'bad_call_shape');
});

test('chat endpoints: unreachable and 5xx are InfrastructureError naming the URL; 4xx are request errors', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const down = new ChatClient(
    ChatEndpointConfig.parse({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', maxRetries: 0 }),
    'judge',
  );
  await assert.rejects(down.chat([{ role: 'user', content: 'hi' }]), (err: unknown) => {
    assert.ok(err instanceof InfrastructureError);
    assert.match(
      err.message,
      new RegExp(`judge at http://127\\.0\\.0\\.1:${port}/v1/chat/completions unreachable \\(ECONNREFUSED\\)`),
    );
    return true;
  });
  server.failNext(502, 401);
  await assert.rejects(
    client('judge').chat([{ role: 'user', content: 'hi' }]),
    (err: unknown) => err instanceof InfrastructureError && /HTTP 502/.test(err.message),
  );
  await assert.rejects(
    client('judge').chat([{ role: 'user', content: 'hi' }]),
    (err: unknown) => err instanceof EndpointRequestError && err.status === 401,
  );
  assert.throws(
    () => client('judge', { apiKeyEnv: 'FINALSTATE_TEST_MISSING_KEY' }),
    /FINALSTATE_TEST_MISSING_KEY \(apiKeyEnv\) is not set/,
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureFeedback, qwen3Renderer } from '../../runtime/interpreter/index.js';
import { tools } from './fixtures.js';

const call = (json: string) => `<tool_call>\n${json}\n</tool_call>`;
const parse = (text: string) => qwen3Renderer.parseOutput(text, tools);

const cases: Array<{ name: string; output: string; kind: string; message: RegExp }> = [
  {
    name: 'bad JSON',
    output: call('{"name": "find_order", "arguments": {"order_id": "ORD-7"}'),
    kind: 'bad_json',
    message: /tool call 1 is not valid JSON/,
  },
  {
    name: 'not a call object',
    output: call('["find_order"]'),
    kind: 'bad_call_shape',
    message: /must be a JSON object \{"name"/,
  },
  {
    name: 'arguments not an object',
    output: call('{"name": "find_order", "arguments": 7}'),
    kind: 'bad_call_shape',
    message: /"arguments" must be a JSON object/,
  },
  {
    name: 'extra key beside name/arguments',
    output: call('{"name": "find_order", "arguments": {}, "id": 1}'),
    kind: 'bad_call_shape',
    message: /unexpected key\(s\) id/,
  },
  {
    name: 'unknown tool',
    output: call('{"name": "delete_everything", "arguments": {}}'),
    kind: 'unknown_tool',
    message: /unknown tool "delete_everything" \(available tools: find_order, refund_order\)/,
  },
  {
    name: 'missing argument',
    output: call('{"name": "refund_order", "arguments": {"order_id": "ORD-7"}}'),
    kind: 'missing_argument',
    message: /missing required argument "amount_cents"/,
  },
  {
    name: 'extra argument',
    output: call('{"name": "find_order", "arguments": {"order_id": "ORD-7", "force": true}}'),
    kind: 'extra_argument',
    message: /unexpected argument "force" \(accepted: order_id\)/,
  },
  {
    name: 'argument of the wrong type',
    output: call('{"name": "refund_order", "arguments": {"order_id": "ORD-7", "amount_cents": "twelve"}}'),
    kind: 'invalid_argument',
    message: /argument "amount_cents" must be an integer, got string "twelve"/,
  },
  {
    name: 'unclosed tool_call',
    output: `Checking.\n<tool_call>\n{"name": "find_order", "arguments": {"order_id": "ORD-7"}}`,
    kind: 'unclosed_tag',
    message: /<tool_call> is never closed/,
  },
  {
    name: 'tool_call opened twice',
    output: `<tool_call>\n{"name": "find_order"\n<tool_call>\n{}\n</tool_call>`,
    kind: 'unclosed_tag',
    message: /tool call 1: <tool_call> is never closed/,
  },
  {
    name: 'unclosed think',
    output: '<think>\nI will call find_order',
    kind: 'unclosed_tag',
    message: /<think> is never closed/,
  },
  {
    name: 'text after a tool call',
    output: `${call('{"name": "find_order", "arguments": {"order_id": "ORD-7"}}')}\nI have looked it up, it is fine.`,
    kind: 'text_after_tool_call',
    message: /text after tool call 1 is not allowed: "I have looked it up/,
  },
  {
    name: 'stray closing tag',
    output: 'All done </tool_call>',
    kind: 'stray_tag',
    message: /<\/tool_call> without a matching <tool_call>/,
  },
  {
    name: 'hallucinated next turn',
    output: 'Done.<|im_end|>\n<|im_start|>user\nthanks',
    kind: 'stray_tag',
    message: /unexpected <\|im_start\|> inside the message/,
  },
];

for (const c of cases) {
  test(`malformed output (${c.name}) becomes a ParseFailure, no call is executed, and the agent gets a tool error`, () => {
    const out = parse(c.output);
    assert.deepEqual(out.calls, []);
    const failure = out.failures.find((f) => f.kind === c.kind);
    assert.ok(failure, `expected a ${c.kind} failure, got ${JSON.stringify(out.failures)}`);
    assert.match(failure.message, c.message);
    assert.equal(out.turn.raw, c.output);
    const feedback = failureFeedback(out.failures);
    assert.equal(feedback.role, 'tool');
    assert.match(feedback.content, /^Error: your last message could not be executed, so no tool was called\./);
    assert.ok(feedback.content.includes(failure.message));
  });
}

test('one malformed call blocks the valid calls of the same message, and every problem is reported', () => {
  const out = parse(
    `${call('{"name": "find_order", "arguments": {"order_id": "ORD-7"}}')}\n${call('{"name": "refund_order", "arguments": {"amount_cents": 1.5, "colour": "red"}}')}`,
  );
  assert.deepEqual(out.calls, []);
  assert.deepEqual(
    out.failures.map((f) => [f.kind, f.callIndex, f.path]),
    [
      ['missing_argument', 1, 'order_id'],
      ['invalid_argument', 1, 'amount_cents'],
      ['extra_argument', 1, 'colour'],
    ],
  );
  assert.equal(out.turn.toolCalls.length, 2, 'the turn still records what the model wrote');
});

test('whitespace around calls and a trailing end-of-turn marker are not failures', () => {
  const out = parse(
    `\n\n${call('{"name": "find_order", "arguments": {"order_id": "ORD-7"}}')}\n\n${call('{"name": "find_order", "arguments": {"order_id": "ORD-8"}}')}\n<|im_end|>`,
  );
  assert.deepEqual(out.failures, []);
  assert.deepEqual(
    out.calls.map((c) => c.arguments.order_id),
    ['ORD-7', 'ORD-8'],
  );
});

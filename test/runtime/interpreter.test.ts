import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  getRenderer,
  qwen3Renderer,
  registerRenderer,
  renderPrompt,
  rendererFamilies,
} from '../../runtime/interpreter/index.js';
import { conversation, tools } from './fixtures.js';

test('qwen3 renders ChatML turns, tools in the system turn, calls and grouped tool responses like Qwen’s template', () => {
  const text = qwen3Renderer.renderConversation(conversation);
  assert.ok(text.startsWith('<|im_start|>system\nYou are a support agent for Acme.'));
  assert.ok(text.includes('\n\n# Tools\n\nYou may call one or more functions'));
  assert.ok(
    text.includes(
      '<tools>\n{"type": "function", "function": {"name": "find_order", "description": "Look up an order by its id.", "parameters": {"type": "object"',
    ),
  );
  assert.ok(
    text.includes(
      '<|im_start|>assistant\n<think>\nI should look the order up first.\n</think>\n\nLet me look that up.\n<tool_call>\n{"name": "find_order", "arguments": {"order_id": "ORD-7"}}\n</tool_call><|im_end|>\n',
    ),
  );
  assert.ok(
    text.includes(
      '<|im_start|>assistant\n<tool_call>\n{"name": "refund_order", "arguments": {"order_id": "ORD-7", "amount_cents": 1200, "reason": "damaged", "note": null}}\n</tool_call>\n<tool_call>\n{"name": "find_order"',
    ),
  );
  assert.ok(
    text.includes(
      '<|im_start|>user\n<tool_response>\nRefund RF-1 created.\n</tool_response>\n<tool_response>\n{"id": "ORD-7", "refunded_cents": 1200}\n</tool_response><|im_end|>\n',
    ),
  );
  assert.ok(
    text.includes('<|im_start|>assistant\n<think>\n\n</think>\n\nDone: 12.00 EUR refunded (RF-1).<|im_end|>\n'),
  );
  assert.ok(text.endsWith('<|im_start|>user\nThanks!<|im_end|>\n'));
  assert.equal(renderPrompt(qwen3Renderer, conversation), `${text}<|im_start|>assistant\n`);
});

test('parse(render(turns)) gives back the same conversation', () => {
  const parsed = qwen3Renderer.parseConversation(qwen3Renderer.renderConversation(conversation));
  assert.deepEqual(parsed, conversation);
  const noTools = { system: 'Be brief.', tools: [], turns: conversation.turns.slice(0, 1) };
  assert.deepEqual(qwen3Renderer.parseConversation(qwen3Renderer.renderConversation(noTools)), noTools);
});

test('render(parse(x)) reproduces sampled output byte for byte, and its canonical form parses to the same turn', () => {
  const outputs = [
    '<think>\nCheck first.\n</think>\n\nOne moment.\n<tool_call>\n{"name": "find_order", "arguments": {"order_id": "ORD-7"}}\n</tool_call><|im_end|>',
    '<think>hmm</think>Sure!  \n\n<tool_call>{"name":"refund_order","arguments":{"order_id":"ORD-7","amount_cents":"1200"}}</tool_call>\n',
    'Your refund is done.',
  ];
  for (const output of outputs) {
    const { turn, failures } = qwen3Renderer.parseOutput(output, tools);
    assert.deepEqual(failures, []);
    const rendered = qwen3Renderer.renderConversation({ system: '', tools: [], turns: [turn] });
    const closing = output.endsWith('<|im_end|>') ? '\n' : '<|im_end|>\n';
    assert.equal(rendered, `<|im_start|>assistant\n${output}${closing}`);
    const { raw: _raw, ...canonical } = turn;
    const again = qwen3Renderer.parseOutput(
      qwen3Renderer
        .renderConversation({ system: '', tools: [], turns: [canonical] })
        .slice('<|im_start|>assistant\n'.length, -'<|im_end|>\n'.length),
      tools,
    );
    const { raw: _raw2, ...canonicalAgain } = again.turn;
    assert.deepEqual(canonicalAgain, canonical);
  }
});

test('parseOutput splits reasoning, visible text and typed calls', () => {
  const out = qwen3Renderer.parseOutput(
    '<think>\nThe user wants a refund.\n</think>\n\nRefunding now.\n<tool_call>\n{"name": "refund_order", "arguments": {"order_id": "ORD-7", "amount_cents": "1200", "notify": "true"}}\n</tool_call><|im_end|>',
    tools,
  );
  assert.equal(out.turn.reasoning, 'The user wants a refund.');
  assert.equal(out.turn.content, 'Refunding now.');
  assert.deepEqual(out.calls, [
    { tool: 'refund_order', arguments: { order_id: 'ORD-7', amount_cents: 1200, notify: true } },
  ]);
  assert.deepEqual(
    out.coercions.map((c) => [c.path, c.rule]),
    [
      ['amount_cents', 'string->integer'],
      ['notify', 'string->boolean'],
    ],
  );
  const plain = qwen3Renderer.parseOutput('No reasoning here.', tools);
  assert.equal(plain.turn.reasoning, undefined);
  assert.equal(plain.turn.content, 'No reasoning here.');
  assert.deepEqual(plain.calls, []);
});

test('renderers are registered per model family', () => {
  assert.equal(getRenderer('qwen3'), qwen3Renderer);
  assert.ok(rendererFamilies().includes('qwen3'));
  assert.throws(() => getRenderer('llama9'), /no renderer for model family "llama9"/);
  const custom = { ...qwen3Renderer, family: 'custom' };
  registerRenderer('custom-test', custom);
  assert.equal(getRenderer('custom-test'), custom);
  assert.throws(() => registerRenderer('custom-test', qwen3Renderer), /already registered/);
});

test('tool results: text items joined, structured content as JSON when there is no text, errors marked', async () => {
  const { toolResultTurn } = await import('../../runtime/interpreter/index.js');
  assert.deepEqual(
    toolResultTurn({ content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }] }),
    { role: 'tool', content: 'a\n[image content omitted]\nb' },
  );
  assert.deepEqual(toolResultTurn({ content: [], structuredContent: { id: 7 } }), {
    role: 'tool',
    content: '{"id":7}',
  });
  assert.deepEqual(toolResultTurn({ content: [{ type: 'text', text: 'order not found' }], isError: true }), {
    role: 'tool',
    content: 'Error: order not found',
  });
  assert.deepEqual(toolResultTurn({ content: [{ type: 'text', text: 'Error: closed' }], isError: true }), {
    role: 'tool',
    content: 'Error: closed',
  });
});

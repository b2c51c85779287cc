import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { loadConfig } from '../../workers/config.js';
import { getRenderer, qwen3CoderRenderer, qwen3Renderer, rendererFamilies } from '../../runtime/interpreter/index.js';
import type { Conversation, ToolSchema } from '../../schemas/conversation.js';

// The parser side of each tool-call format against what Qwen's own models write: canitoolcall's fixtures (a PyPI
// package, installed into .venv/assets) are assistant outputs rendered by the official chat templates of Qwen3
// (Hermes JSON) and Qwen3-Coder (XML), with the calls a correct parser reads from them (only the template renders:
// the package's lenient cases, such as a call without its opening <tool_call>, are refused here on purpose). Then round trips and the
// malformed outputs of the XML format.
const config = loadConfig();
const fixtures = fromRoot(config.python.venv, 'assets', 'canitoolcall', '_data', 'fixtures');

interface Fixture {
  id: string;
  models: string[];
  tools: { function: { name: string; description?: string; parameters: Record<string, unknown> } }[];
  raw_output: string;
  provenance: { kind: string };
  generation_prompt: string;
  expected: {
    content: string | null;
    reasoning_content?: string | null;
    tool_calls: { name: string; arguments: Record<string, unknown> }[];
  };
}

function readFixtures(family: string, model: RegExp): Fixture[] {
  return fs
    .readdirSync(path.join(fixtures, family))
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      fs
        .readFileSync(path.join(fixtures, family, f), 'utf8')
        .split('\n')
        .filter(Boolean),
    )
    .map((line) => JSON.parse(line) as Fixture)
    .filter(
      (f) =>
        f.models.some((m) => model.test(m)) &&
        f.generation_prompt === '<|im_start|>assistant\n' &&
        f.provenance.kind === 'template_render' &&
        (f.expected?.tool_calls?.length ?? 0) > 0,
    );
}

const toolsOf = (f: Fixture): ToolSchema[] =>
  f.tools.map((t) => ({
    name: t.function.name,
    description: t.function.description ?? '',
    inputSchema: t.function.parameters,
  }));

for (const [renderer, family, model] of [
  [qwen3Renderer, 'qwen3-hermes', /^Qwen\/Qwen3-(0\.6B|8B|32B|30B-A3B|235B-A22B)/],
  [qwen3CoderRenderer, 'qwen3-xml', /^Qwen\/Qwen3-Coder/],
] as const) {
  test(`${renderer.family}: the calls in ${family} outputs of ${model.source} read as the fixtures expect`, () => {
    const cases = readFixtures(family, model);
    assert.ok(cases.length >= 6, `${cases.length} fixtures`);
    for (const f of cases) {
      const parsed = renderer.parseOutput(f.raw_output, toolsOf(f));
      assert.deepEqual(parsed.failures, [], f.id);
      assert.deepEqual(
        parsed.calls.map((c) => ({ name: c.tool, arguments: c.arguments })),
        f.expected.tool_calls,
        f.id,
      );
      assert.equal(parsed.turn.content, (f.expected.content ?? '').trim(), f.id);
    }
  });
}

const tools: ToolSchema[] = [
  {
    name: 'refund',
    description: 'Refund an order.',
    inputSchema: {
      type: 'object',
      properties: {
        order_id: { type: 'string' },
        amount: { type: 'number' },
        count: { type: 'integer' },
        notify: { type: 'boolean' },
        note: { type: ['string', 'null'] },
        reason: { type: ['boolean', 'null'] },
        lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
      },
      required: ['order_id'],
      additionalProperties: false,
    },
  },
];

test('both formats are registered, Hermes JSON first (the model check tries them in this order)', () => {
  assert.deepEqual(rendererFamilies(), ['qwen3', 'qwen3-coder']);
  assert.equal(getRenderer('qwen3-coder'), qwen3CoderRenderer);
});

test('qwen3-coder: a call renders as the template writes it and reads back to the same typed call', () => {
  const call = {
    tool: 'refund',
    arguments: {
      order_id: 'True',
      amount: 1e-7,
      count: 3,
      notify: false,
      note: null,
      reason: null,
      lines: [{ sku: 'É-1' }],
    },
  };
  const conversation: Conversation = {
    system: 'Be brief.',
    tools,
    turns: [
      { role: 'user', content: 'Refund ORD-7.' },
      { role: 'assistant', content: 'On it.', toolCalls: [call] },
    ],
  };
  const text = qwen3CoderRenderer.renderConversation(conversation);
  assert.ok(
    text.includes(
      '<|im_start|>assistant\nOn it.\n\n<tool_call>\n<function=refund>\n<parameter=order_id>\nTrue\n</parameter>\n' +
        '<parameter=amount>\n1e-07\n</parameter>\n<parameter=count>\n3\n</parameter>\n<parameter=notify>\nFalse\n</parameter>\n' +
        '<parameter=note>\nNone\n</parameter>\n<parameter=reason>\nNone\n</parameter>\n' +
        '<parameter=lines>\n[{"sku": "É-1"}]\n</parameter>\n</function>\n</tool_call><|im_end|>\n',
    ),
    text,
  );
  assert.ok(
    text.includes("<type>['string', 'null']</type>") &&
      text.includes('<additionalProperties>False</additionalProperties>'),
  );
  const body = text.slice(text.lastIndexOf('<|im_start|>assistant\n') + '<|im_start|>assistant\n'.length, -1);
  const parsed = qwen3CoderRenderer.parseOutput(body, tools);
  assert.deepEqual(parsed.failures, []);
  assert.deepEqual(parsed.calls, [call]);
});

test('qwen3-coder: malformed calls are parse failures that name the problem, and none of the calls runs', () => {
  const cases: [string, string, RegExp][] = [
    [
      '<tool_call>\n<function=refund>\n<parameter=order_id>\nA\n</parameter>\n</tool_call>',
      'bad_call_shape',
      /<\/function> missing/,
    ],
    ['<tool_call>\n{"name": "refund", "arguments": {}}\n</tool_call>', 'bad_call_shape', /expected <function=NAME>/],
    [
      '<tool_call>\n<function=refund>\n<parameter=order_id>\nA\n</function>\n</tool_call>',
      'bad_call_shape',
      /never closed/,
    ],
    [
      '<tool_call>\n<function=refund>\n<parameter=order_id>\nA\n</parameter>\n<parameter=order_id>\nB\n</parameter>\n</function>\n</tool_call>',
      'bad_call_shape',
      /given twice/,
    ],
    [
      '<tool_call>\n<function=refund>\n<parameter=order_id>\nA\n</parameter>\n<parameter=colour>\nred\n</parameter>\n</function>\n</tool_call>',
      'extra_argument',
      /colour/,
    ],
    [
      '<tool_call>\n<function=refund>\n<parameter=order_id>\nA\n</parameter>\n<parameter=count>\nthree\n</parameter>\n</function>\n</tool_call>',
      'invalid_argument',
      /count/,
    ],
    ['<tool_call>\n<function=refund>\n</function>\n</tool_call>', 'missing_argument', /order_id/],
    ['<tool_call>\n<function=drop_tables>\n</function>\n</tool_call>', 'unknown_tool', /drop_tables/],
    [
      '<tool_call>\n<function=refund>\n<parameter=order_id>\nA\n</parameter>\n</function>\n</tool_call> and more',
      'text_after_tool_call',
      /and more/,
    ],
    [
      '<tool_call>\n<function=refund>\n<parameter=order_id>\nA\n</parameter>\n</function>',
      'unclosed_tag',
      /never closed/,
    ],
  ];
  for (const [output, kind, message] of cases) {
    const parsed = qwen3CoderRenderer.parseOutput(`${output}<|im_end|>`, tools);
    assert.deepEqual(parsed.calls, [], output);
    assert.ok(
      parsed.failures.some((f) => f.kind === kind && message.test(f.message)),
      `${output}: ${JSON.stringify(parsed.failures)}`,
    );
  }
  // a typed value in text form converts as for any format (recorded), "True" for a boolean is Python's spelling
  const ok = qwen3CoderRenderer.parseOutput(
    '<tool_call>\n<function=refund>\n<parameter=order_id>\n7\n</parameter>\n<parameter=notify>\nTrue\n</parameter>\n<parameter=count>\n"4"\n</parameter>\n</function>\n</tool_call>',
    tools,
  );
  assert.deepEqual(ok.failures, []);
  assert.deepEqual(ok.calls, [{ tool: 'refund', arguments: { order_id: '7', notify: true, count: 4 } }]);
  assert.deepEqual(
    ok.coercions.map((c) => c.rule),
    ['string->integer'],
  );
});

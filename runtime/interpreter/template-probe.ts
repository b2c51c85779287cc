import type { Conversation, ToolSchema } from '../../schemas/conversation.js';
import type { TemplateProbe } from '../../schemas/model-check.js';
import { isPlainObject } from './calls.js';
import { pythonJson } from './python-json.js';
import { type ChatRenderer, renderPrompt } from './renderer.js';

/**
 * A conversation with everything a tool-using episode renders: a policy, tools with nested and non-ASCII schemas, a
 * call after visible text, two calls in one turn, their results in one turn, a final answer and a user reply. A
 * checkpoint's chat template must render it exactly as the interpreter does, or training would see other tokens than
 * the model's makers trained it on. It has no reasoning: Qwen3's own template drops the reasoning of earlier turns,
 * which the interpreter keeps on purpose (docs/interpreter.md).
 */
export const probeConversation: Conversation = {
  system: 'You are the support agent of Café Nord. Refunds above 50 € need a manager.',
  tools: [
    {
      name: 'find_order',
      description: 'Look up an order by its id («ORD-…»).',
      inputSchema: {
        type: 'object',
        properties: { order_id: { type: 'string' } },
        required: ['order_id'],
        additionalProperties: false,
      },
    },
    {
      name: 'refund_order',
      description: 'Refund part of an order.',
      inputSchema: {
        type: 'object',
        required: ['order_id', 'amount_cents'],
        properties: {
          lines: {
            type: 'array',
            items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } } },
          },
          order_id: { type: 'string' },
          amount_cents: { type: 'integer', minimum: 1, description: 'in cents, ≤ the order total' },
          notify: { type: ['boolean', 'null'] },
        },
      },
    },
  ],
  turns: [
    { role: 'user', content: 'My order ORD-7 arrived damaged, please refund 12 €.' },
    {
      role: 'assistant',
      content: 'Let me look that order up.',
      toolCalls: [{ tool: 'find_order', arguments: { order_id: 'ORD-7' } }],
    },
    {
      role: 'tool',
      content: '{"order_id": "ORD-7", "status": "delivered", "total_cents": 4200, "note": "fragile \\"glass\\""}',
    },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        {
          tool: 'refund_order',
          arguments: { order_id: 'ORD-7', amount_cents: 1200, notify: true, lines: [{ sku: 'MUG-1', qty: 2 }] },
        },
        { tool: 'find_order', arguments: { order_id: 'ORD-7' } },
      ],
    },
    { role: 'tool', content: '{"refund_id": "RF-1", "amount_cents": 1200}' },
    { role: 'tool', content: 'Error: order ORD-7 is locked for 5 minutes' },
    { role: 'assistant', content: 'I refunded 12 € (refund RF-1).', toolCalls: [] },
    { role: 'user', content: 'Thanks! Will I get an e-mail?' },
  ],
};

/** A conversation as Hugging Face chat templates take it: OpenAI-style messages and tools. */
export function templateInput(conversation: Conversation): Pick<TemplateProbe, 'messages' | 'tools'> {
  const messages: TemplateProbe['messages'] =
    conversation.system === '' ? [] : [{ role: 'system', content: conversation.system }];
  for (const turn of conversation.turns) {
    if (turn.role !== 'assistant') {
      messages.push({ role: turn.role, content: turn.content });
      continue;
    }
    messages.push({
      role: 'assistant',
      content: turn.content,
      ...(turn.reasoning === undefined ? {} : { reasoning_content: turn.reasoning }),
      ...(turn.toolCalls.length
        ? {
            tool_calls: turn.toolCalls.map((call) => ({
              type: 'function' as const,
              function: { name: call.tool, arguments: call.arguments },
            })),
          }
        : {}),
    });
  }
  const tools = conversation.tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
  return { messages, tools };
}

/** A probe for the model check: the conversation for the template (structured and plain), and our rendering of it. */
export function templateProbe(
  renderer: ChatRenderer,
  conversation: Conversation = probeConversation,
  name = 'probe',
): TemplateProbe {
  return {
    name,
    ...templateInput(conversation),
    plainMessages: renderer.plainMessages(conversation),
    rendered: renderPrompt(renderer, conversation),
  };
}

/** A value of the type a property schema asks for (first enum value, first alternative), for a probe call. */
function sampleValue(schema: unknown): unknown {
  if (!isPlainObject(schema)) return 'Zoë';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  if (schema.type === undefined && alternatives?.length) return sampleValue(alternatives[0]);
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? 'null') : schema.type;
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  switch (type) {
    case 'integer':
      return minimum === undefined ? 3 : Math.ceil(minimum) + 2;
    case 'number':
      return minimum === undefined ? 12.5 : minimum + 0.25;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return [sampleValue(schema.items)];
    case 'object':
      return sampleArguments(schema);
    default:
      if (schema.format === 'email') return 'zoe.noel@example.com';
      if (schema.format === 'date') return '2026-03-01';
      if (schema.format === 'date-time') return '2026-03-01T09:30:00Z';
      return 'Zoë «Nord» 7';
  }
}

/** Arguments with every declared property set (optional ones too), so a probe call writes each parameter type. */
export function sampleArguments(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, sampleValue(value)]));
}

/**
 * A conversation over a domain's own tools, as an episode offers them: its policy and tool list, a turn that calls
 * every tool once (every parameter set), one result per call (JSON with non-ASCII text), a final answer and a user
 * reply. The model check renders one per domain and profile of a campaign, so the template is checked on the tool
 * schemas the campaign trains on, not only on the fixed probe.
 */
export function domainProbeConversation(system: string, tools: readonly ToolSchema[]): Conversation {
  return {
    system,
    tools: [...tools],
    turns: [
      { role: 'user', content: 'Hello, I am Zoë Noël. Could you look into my request?' },
      {
        role: 'assistant',
        content: 'Let me check that for you.',
        toolCalls: tools.map((tool) => ({ tool: tool.name, arguments: sampleArguments(tool.inputSchema) })),
      },
      ...tools.map((tool) => ({
        role: 'tool' as const,
        content: pythonJson({ tool: tool.name, status: 'ok', note: 'réglé — «done»', amount: 12.5 }),
      })),
      { role: 'assistant', content: 'All done: everything is settled.', toolCalls: [] },
      { role: 'user', content: 'Thank you! Anything else I should know?' },
    ],
  };
}

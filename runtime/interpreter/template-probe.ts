import type { Conversation } from '../../schemas/conversation.js';
import type { ModelCheckRequest } from '../../schemas/model-check.js';
import { type ChatRenderer, renderPrompt } from './renderer.js';

type TemplateInput = ModelCheckRequest['probe'];

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
export function templateInput(conversation: Conversation): Omit<TemplateInput, 'rendered'> {
  const messages: TemplateInput['messages'] =
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

/** The probe for the base-model check: the conversation for the template, and our rendering of it. */
export function templateProbe(renderer: ChatRenderer, conversation: Conversation = probeConversation): TemplateInput {
  return { ...templateInput(conversation), rendered: renderPrompt(renderer, conversation) };
}

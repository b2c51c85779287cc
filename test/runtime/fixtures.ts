import type { Conversation, ToolSchema } from '../../schemas/conversation.js';

/** Tool schemas in the MCP listTools shape, as a domain pack's zod inputs export them. */
export const tools: ToolSchema[] = [
  {
    name: 'find_order',
    description: 'Look up an order by its id.',
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
      properties: {
        order_id: { type: 'string' },
        amount_cents: { type: 'integer', minimum: 1 },
        rate: { type: 'number' },
        notify: { type: 'boolean' },
        reason: { type: 'string', enum: ['damaged', 'late', 'other'] },
        note: { type: ['string', 'null'] },
        lines: {
          type: 'array',
          items: {
            type: 'object',
            properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
            required: ['sku', 'qty'],
          },
        },
      },
      required: ['order_id', 'amount_cents'],
    },
  },
];

export const conversation: Conversation = {
  system: 'You are a support agent for Acme. Never refund more than the order total.',
  tools,
  turns: [
    { role: 'user', content: 'My order ORD-7 arrived damaged, please refund 12 euros.' },
    {
      role: 'assistant',
      reasoning: 'I should look the order up first.',
      content: 'Let me look that up.',
      toolCalls: [{ tool: 'find_order', arguments: { order_id: 'ORD-7' } }],
    },
    { role: 'tool', content: '{"id": "ORD-7", "total_cents": 5000}' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { tool: 'refund_order', arguments: { order_id: 'ORD-7', amount_cents: 1200, reason: 'damaged', note: null } },
        { tool: 'find_order', arguments: { order_id: 'ORD-7' } },
      ],
    },
    { role: 'tool', content: 'Refund RF-1 created.' },
    { role: 'tool', content: '{"id": "ORD-7", "refunded_cents": 1200}' },
    { role: 'assistant', reasoning: '', content: 'Done: 12.00 EUR refunded (RF-1).', toolCalls: [] },
    { role: 'user', content: 'Thanks!' },
  ],
};

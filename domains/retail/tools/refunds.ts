import { defineTool, fromCents, selectJson, selectOne, toCents, ToolRejection, writeAudit, z } from 'finalstate/domain';
import { REFUND_REASONS } from '../schema.js';
import { requireOrder } from './orders.js';

const amount = z.number().positive().describe('Amount in dollars, e.g. 12.5 (whole cents).');

function requireWholeCents(value: number): number {
  const cents = toCents(value);
  if (Math.abs(cents - value * 100) > 1e-6)
    throw new ToolRejection(`Amount ${value} is not in whole cents; round it to two decimals.`);
  return cents;
}

export const createRefund = defineTool({
  name: 'create_refund',
  miniDescription: 'Refund money on an order.',
  description:
    "Refund money to the order's original payment method: compensation for a late delivery, a price adjustment, or an item damaged on arrival. The amount cannot exceed what was paid minus earlier refunds. Policy limits (percentages, approval thresholds) are yours to apply.",
  input: {
    order_id: z.string().describe('The order id.'),
    amount,
    reason: z.enum(REFUND_REASONS).describe('Why the money is refunded.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const cents = requireWholeCents(args.amount);
    const order = await requireOrder(ctx, args.order_id);
    if (order.status === 'cancelled')
      throw new ToolRejection(`Order ${args.order_id} is cancelled; its payments were already returned.`);
    const [paid] = await selectJson(
      ctx.db,
      `SELECT COALESCE((SELECT sum(amount) FROM payments WHERE order_id = $1 AND status = 'captured'), 0)
            - COALESCE((SELECT sum(amount) FROM refunds WHERE order_id = $1), 0) AS refundable`,
      [args.order_id],
    );
    const refundable = toCents(Number(paid?.refundable ?? 0));
    if (cents > refundable)
      throw new ToolRejection(`Only ${fromCents(refundable)} of order ${args.order_id} can still be refunded.`);
    const refundId = await ctx.nextId('refund');
    await ctx.db.query(
      'INSERT INTO refunds (refund_id, order_id, amount, reason, created_at) VALUES ($1, $2, $3, $4, $5)',
      [refundId, args.order_id, fromCents(cents), args.reason, ctx.now],
    );
    await writeAudit(ctx, {
      entityType: 'order',
      entityId: args.order_id,
      action: `refund:${args.reason}`,
      detail: `${refundId} ${fromCents(cents)}`,
    });
    return { refund_id: refundId, order_id: args.order_id, amount: fromCents(cents), reason: args.reason };
  },
});

export const issueStoreCredit = defineTool({
  name: 'issue_store_credit',
  description:
    "Add store credit to a customer's account (spendable on future orders, not cash). Used for price adjustments of standard-tier customers and for goodwill gestures the policy allows.",
  input: {
    customer_id: z.string().describe('The customer id.'),
    amount,
    reason: z.enum(['price_adjustment', 'goodwill']).describe('Why the credit is issued.'),
    order_id: z.string().optional().describe('The order the credit relates to, if any.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const cents = requireWholeCents(args.amount);
    await selectOne(
      ctx.db,
      'SELECT customer_id FROM customers WHERE customer_id = $1',
      [args.customer_id],
      `No customer ${args.customer_id}.`,
    );
    if (args.order_id !== undefined) {
      const order = await requireOrder(ctx, args.order_id);
      if (order.customer_id !== args.customer_id)
        throw new ToolRejection(`Order ${args.order_id} does not belong to customer ${args.customer_id}.`);
    }
    const creditId = await ctx.nextId('credit');
    await ctx.db.query(
      'INSERT INTO store_credits (credit_id, customer_id, order_id, amount, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [creditId, args.customer_id, args.order_id ?? null, fromCents(cents), args.reason, ctx.now],
    );
    await writeAudit(ctx, {
      entityType: 'customer',
      entityId: args.customer_id,
      action: `store_credit:${args.reason}`,
      detail: `${creditId} ${fromCents(cents)}`,
    });
    return { credit_id: creditId, customer_id: args.customer_id, amount: fromCents(cents) };
  },
});

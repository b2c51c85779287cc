import { defineTool, fromCents, selectOne, toCents, ToolRejection, writeAudit, z } from 'finalstate/domain';
import { RETURN_REASONS } from '../schema.js';
import { requireOrder } from './orders.js';

export const createReturn = defineTool({
  name: 'create_return',
  miniDescription: 'Open a return for one item.',
  description:
    'Open a return (RMA) for one line item of a delivered order. You decide eligibility and the restocking fee under the policy; the refund amount is computed as the line total (unit_price x quantity) minus the fee and is paid when the warehouse receives the item. One RMA per line item.',
  input: {
    order_id: z.string().describe('The order id.'),
    item_id: z.string().describe('The line item returned, e.g. ORD-104233-1.'),
    reason: z
      .enum(RETURN_REASONS)
      .describe(
        'Why the customer returns it: changed_mind, not_as_described, defective, damaged_in_transit or wrong_item.',
      ),
    item_opened: z.boolean().describe('Whether the customer opened the packaging (ask them).'),
    restocking_fee: z.number().min(0).describe('Restocking fee in dollars under the policy; 0 when none applies.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const order = await requireOrder(ctx, args.order_id);
    if (order.status !== 'delivered')
      throw new ToolRejection(`Order ${args.order_id} is ${order.status}; only delivered orders can be returned.`);
    const item = await selectOne(
      ctx.db,
      'SELECT * FROM order_items WHERE item_id = $1 AND order_id = $2',
      [args.item_id, args.order_id],
      `Order ${args.order_id} has no item ${args.item_id}.`,
    );
    if (item.status !== 'ordered')
      throw new ToolRejection(`Item ${args.item_id} is already ${item.status}; it cannot be returned again.`);
    const lineCents = toCents(Number(item.unit_price)) * Number(item.quantity);
    const feeCents = toCents(args.restocking_fee);
    if (feeCents > lineCents)
      throw new ToolRejection(
        `The restocking fee ${args.restocking_fee} exceeds the line total ${fromCents(lineCents)}.`,
      );
    const rmaId = await ctx.nextId('return');
    const refundAmount = fromCents(lineCents - feeCents);
    await ctx.db.query(
      `INSERT INTO returns (rma_id, order_id, item_id, reason, item_opened, restocking_fee, refund_amount, status, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'awaiting_item', $8)`,
      [rmaId, args.order_id, args.item_id, args.reason, args.item_opened, fromCents(feeCents), refundAmount, ctx.now],
    );
    await ctx.db.query("UPDATE order_items SET status = 'return_requested' WHERE item_id = $1", [args.item_id]);
    await writeAudit(ctx, {
      entityType: 'order_item',
      entityId: args.item_id,
      action: 'return',
      detail: `${rmaId} ${args.reason}`,
    });
    return { rma_id: rmaId, status: 'awaiting_item', restocking_fee: fromCents(feeCents), refund_amount: refundAmount };
  },
});

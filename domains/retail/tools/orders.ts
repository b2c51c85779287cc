import {
  daysBetween,
  defineTool,
  type JsonRow,
  selectJson,
  selectOne,
  type ToolContext,
  ToolRejection,
  writeAudit,
  z,
} from 'finalstate/domain';
import { CANCEL_REASONS } from '../schema.js';

const orderId = z.string().describe('The order id, e.g. ORD-104233.');
/** Orders the warehouse has not picked yet: the only ones that can still be cancelled or re-addressed. */
const OPEN_STATUSES = ['pending_payment', 'processing'];

export async function requireOrder(ctx: ToolContext, id: string): Promise<JsonRow> {
  return selectOne(
    ctx.db,
    'SELECT * FROM orders WHERE order_id = $1',
    [id],
    `No order ${id}. Check the id with the customer or use list_customer_orders.`,
  );
}

interface OrderView {
  order_id: string;
  status: string;
  customer_tier: string;
  total: number;
  delivered_at: string | null;
  items: { item_id: string; quantity: number; unit_price: number }[];
  shipment: { status: string; estimated_delivery: string } | null;
}

/** The mini profile's order: what its policy needs, with the day counts computed from the episode clock. */
function miniOrder(result: unknown, { now }: { now: Date }): unknown {
  const o = result as OrderView;
  return {
    order_id: o.order_id,
    status: o.status,
    tier: o.customer_tier,
    total: o.total,
    ...(o.delivered_at ? { days_since_delivery: daysBetween(new Date(o.delivered_at), now) } : {}),
    ...(o.shipment
      ? {
          shipment: {
            status: o.shipment.status,
            days_past_estimate: daysBetween(new Date(o.shipment.estimated_delivery), now),
          },
        }
      : {}),
    items: o.items.map((i) => ({ item_id: i.item_id, unit_price: i.unit_price, quantity: i.quantity })),
  };
}

export const getOrder = defineTool({
  name: 'get_order',
  miniDescription: 'Get an order.',
  description:
    "Get an order with everything needed to handle it: status, dates (placed_at, delivered_at), shipping address and speed, total, the customer's id and tier, line items (item_id, sku, product name, quantity, unit_price paid, today's price, final_sale, item status), payments, the shipment (status, estimated_delivery), refunds already issued and returns already opened.",
  input: { order_id: orderId },
  readOnly: true,
  miniResult: miniOrder,
  async handler(ctx, args) {
    const order = await selectOne(
      ctx.db,
      `SELECT o.order_id, o.customer_id, c.tier AS customer_tier, o.status, o.placed_at, o.delivered_at, o.shipping_address, o.shipping_speed,
              o.shipping_fee, o.total, o.cancel_reason, o.replacement_for
         FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_id = $1`,
      [args.order_id],
      `No order ${args.order_id}. Check the id with the customer or use list_customer_orders.`,
    );
    const id = [args.order_id];
    return {
      ...order,
      items: await selectJson(
        ctx.db,
        `SELECT i.item_id, i.sku, p.name, i.quantity, i.unit_price, p.price AS current_price, p.final_sale, i.status
           FROM order_items i JOIN products p ON p.sku = i.sku WHERE i.order_id = $1 ORDER BY i.item_id`,
        id,
      ),
      payments: await selectJson(
        ctx.db,
        'SELECT payment_id, method, amount, status FROM payments WHERE order_id = $1 ORDER BY payment_id',
        id,
      ),
      shipment:
        (
          await selectJson(
            ctx.db,
            'SELECT shipment_id, carrier, tracking_number, status, estimated_delivery FROM shipments WHERE order_id = $1 ORDER BY shipment_id',
            id,
          )
        )[0] ?? null,
      refunds: await selectJson(
        ctx.db,
        'SELECT refund_id, amount, reason, created_at FROM refunds WHERE order_id = $1 ORDER BY refund_id',
        id,
      ),
      returns: await selectJson(
        ctx.db,
        'SELECT rma_id, item_id, reason, restocking_fee, refund_amount, status FROM returns WHERE order_id = $1 ORDER BY rma_id',
        id,
      ),
    };
  },
});

export const listCustomerOrders = defineTool({
  name: 'list_customer_orders',
  description:
    "List a customer's orders, newest first, with status, placed_at and total. Use it when the customer does not know the order id.",
  input: { customer_id: z.string().describe('The customer id.') },
  readOnly: true,
  async handler(ctx, args) {
    await selectOne(
      ctx.db,
      'SELECT customer_id FROM customers WHERE customer_id = $1',
      [args.customer_id],
      `No customer ${args.customer_id}.`,
    );
    const orders = await selectJson(
      ctx.db,
      'SELECT order_id, status, placed_at, total FROM orders WHERE customer_id = $1 ORDER BY placed_at DESC, order_id DESC',
      [args.customer_id],
    );
    return { orders };
  },
});

export const getTracking = defineTool({
  name: 'get_tracking',
  description:
    "Get the carrier tracking of an order's shipment: carrier, tracking number, status (label_created, in_transit, delayed, delivered, exception) and estimated delivery.",
  input: { order_id: orderId },
  readOnly: true,
  async handler(ctx, args) {
    await requireOrder(ctx, args.order_id);
    return selectOne(
      ctx.db,
      'SELECT order_id, carrier, tracking_number, status, estimated_delivery FROM shipments WHERE order_id = $1 ORDER BY shipment_id LIMIT 1',
      [args.order_id],
      `Order ${args.order_id} has not shipped yet; there is no tracking.`,
    );
  },
});

export const cancelOrder = defineTool({
  name: 'cancel_order',
  miniDescription: 'Cancel an order.',
  description:
    'Cancel an order that has not shipped (status pending_payment or processing). Voids authorised payments, refunds captured ones in full and returns the items to stock. Shipped or delivered orders cannot be cancelled.',
  input: {
    order_id: orderId,
    reason: z
      .enum(CANCEL_REASONS)
      .describe('customer_request unless the customer ordered by mistake or placed the order twice.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const order = await requireOrder(ctx, args.order_id);
    if (!OPEN_STATUSES.includes(String(order.status))) {
      throw new ToolRejection(
        `Order ${args.order_id} is ${order.status}; only pending_payment or processing orders can be cancelled.`,
      );
    }
    await ctx.db.query("UPDATE orders SET status = 'cancelled', cancel_reason = $2 WHERE order_id = $1", [
      args.order_id,
      args.reason,
    ]);
    await ctx.db.query(
      "UPDATE payments SET status = CASE status WHEN 'authorized' THEN 'voided' WHEN 'captured' THEN 'refunded' ELSE status END WHERE order_id = $1",
      [args.order_id],
    );
    await ctx.db.query(
      'UPDATE inventory v SET on_hand = v.on_hand + s.qty FROM (SELECT sku, sum(quantity)::int AS qty FROM order_items WHERE order_id = $1 GROUP BY sku) s WHERE v.sku = s.sku',
      [args.order_id],
    );
    await writeAudit(ctx, { entityType: 'order', entityId: args.order_id, action: 'cancel', detail: args.reason });
    return {
      order_id: args.order_id,
      status: 'cancelled',
      payments: await selectJson(ctx.db, 'SELECT payment_id, amount, status FROM payments WHERE order_id = $1', [
        args.order_id,
      ]),
    };
  },
});

export const updateShippingAddress = defineTool({
  name: 'update_shipping_address',
  miniDescription: 'Change the shipping address of an order.',
  description:
    'Replace the shipping address of an order that has not shipped (pending_payment or processing). Pass the full new address exactly as the customer states it.',
  input: {
    order_id: orderId,
    address: z.string().min(5).describe('The complete new address: street, city, postal code.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const order = await requireOrder(ctx, args.order_id);
    if (!OPEN_STATUSES.includes(String(order.status))) {
      throw new ToolRejection(
        `Order ${args.order_id} is ${order.status}; the address can only change before the order ships.`,
      );
    }
    await ctx.db.query('UPDATE orders SET shipping_address = $2 WHERE order_id = $1', [
      args.order_id,
      args.address.trim(),
    ]);
    await writeAudit(ctx, {
      entityType: 'order',
      entityId: args.order_id,
      action: 'address_change',
      detail: args.address,
    });
    return { order_id: args.order_id, shipping_address: args.address.trim() };
  },
});

export const createReplacementOrder = defineTool({
  name: 'create_replacement_order',
  description:
    'Send a free replacement for one line item of a delivered order (e.g. damaged on arrival). Creates a new zero-total order to the same address, takes the units from stock and marks the original item replaced. Fails when the product is out of stock.',
  input: {
    order_id: orderId,
    item_id: z.string().describe('The line item to replace, e.g. ORD-104233-1.'),
    shipping_speed: z
      .enum(['standard', 'expedited'])
      .describe('Shipping speed the policy prescribes for this customer.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const order = await requireOrder(ctx, args.order_id);
    if (order.status !== 'delivered')
      throw new ToolRejection(`Order ${args.order_id} is ${order.status}; only delivered orders get replacements.`);
    const item = await selectOne(
      ctx.db,
      'SELECT * FROM order_items WHERE item_id = $1 AND order_id = $2',
      [args.item_id, args.order_id],
      `Order ${args.order_id} has no item ${args.item_id}.`,
    );
    if (item.status !== 'ordered') throw new ToolRejection(`Item ${args.item_id} is already ${item.status}.`);
    const quantity = Number(item.quantity);
    const taken = await ctx.db.query('UPDATE inventory SET on_hand = on_hand - $2 WHERE sku = $1 AND on_hand >= $2', [
      item.sku,
      quantity,
    ]);
    if (taken.rowCount === 0)
      throw new ToolRejection(
        `${item.sku} is out of stock (fewer than ${quantity} units); no replacement can be sent.`,
      );
    const newOrderId = await ctx.nextId('order');
    await ctx.db.query(
      `INSERT INTO orders (order_id, customer_id, status, placed_at, shipping_address, shipping_speed, shipping_fee, total, replacement_for)
       VALUES ($1, $2, 'processing', $3, $4, $5, 0, 0, $6)`,
      [newOrderId, order.customer_id, ctx.now, order.shipping_address, args.shipping_speed, args.order_id],
    );
    await ctx.db.query(
      "INSERT INTO order_items (item_id, order_id, sku, quantity, unit_price, status) VALUES ($1, $2, $3, $4, 0, 'ordered')",
      [`${newOrderId}-1`, newOrderId, item.sku, quantity],
    );
    await ctx.db.query("UPDATE order_items SET status = 'replaced' WHERE item_id = $1", [args.item_id]);
    await writeAudit(ctx, { entityType: 'order_item', entityId: args.item_id, action: 'replace', detail: newOrderId });
    return { replacement_order_id: newOrderId, sku: item.sku, quantity, shipping_speed: args.shipping_speed };
  },
});

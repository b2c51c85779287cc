import { call, type Scenario, sqlString } from 'finalstate/domain';
import { initFor, makeCustomer, makeUnshippedOrder, orderRequestDraft, orderStatusAssertion } from './fixtures.js';

const WHY = {
  customer_request: 'I changed my mind and no longer need it',
  ordered_by_mistake: 'I ordered it by mistake',
  duplicate_order: 'I accidentally placed the same order twice',
} as const;

/** An unshipped order the customer wants cancelled: cancel with the right reason. */
export const cancelOrderScenario: Scenario = {
  type: 'cancel_order',
  profiles: ['full', 'mini'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const order = makeUnshippedOrder(ctx, customer, { lines: ctx.rng.int(1, 2), maxQuantity: 2 });
    const reason = ctx.profile === 'mini' ? 'customer_request' : ctx.rng.pick(Object.keys(WHY) as (keyof typeof WHY)[]);
    return orderRequestDraft(ctx, {
      customer,
      orderId: order.order_id,
      init: initFor(customer, [order]),
      miniQuery: `Please cancel my order ${order.order_id}.`,
      fullQuery: `I'd like to cancel my order ${order.order_id}: ${WHY[reason]}.`,
      goal: `cancel order ${order.order_id} because ${WHY[reason]}.`,
      actions: [call('cancel_order', { order_id: order.order_id, reason })],
      ticket: { category: 'cancellation', final: 'solved' },
      assertions: [
        orderStatusAssertion(order.order_id, 'cancelled'),
        {
          description: 'cancel reason recorded',
          sql: `SELECT cancel_reason FROM orders WHERE order_id = ${sqlString(order.order_id)}`,
          expect: [{ cancel_reason: reason }],
        },
      ],
    });
  },
};

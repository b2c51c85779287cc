import { call, percentOf, type Scenario } from 'finalstate/domain';
import { RETAIL_RULES } from '../policy.js';
import { initFor, makeCustomer, makeOrder, orderRequestDraft, pickProducts, refundAssertion } from './fixtures.js';

/** A delayed shipment past the grace period: refund the tier's percentage of the order total. */
export const lateDeliveryScenario: Scenario = {
  type: 'late_delivery_compensation',
  profiles: ['full', 'mini'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const order = makeOrder(ctx, customer, {
      status: 'shipped',
      placedDaysAgo: ctx.rng.int(10, 20),
      lines: pickProducts(ctx.rng, ctx.rng.int(1, 2), (p) => !p.final_sale && p.price < 450).map((product) => ({
        product,
        quantity: 1,
      })),
      shipment: { status: 'delayed', etaDaysAgo: ctx.rng.int(RETAIL_RULES.lateDeliveryGraceDays, 12) },
    });
    const amount = percentOf(order.total, RETAIL_RULES.lateDeliveryPercent[customer.tier]!);
    return orderRequestDraft(ctx, {
      customer,
      orderId: order.order_id,
      init: initFor(customer, [order]),
      miniQuery: `My order ${order.order_id} is late. Can I get compensation?`,
      fullQuery: `My order ${order.order_id} still hasn't arrived and it's way past the delivery date. What's going on, and do I get anything for the wait?`,
      goal: `find out about the late order ${order.order_id} and get compensation if the store offers it.`,
      actions: [call('create_refund', { order_id: order.order_id, amount, reason: 'late_delivery_compensation' })],
      ticket: { category: 'delivery', final: 'solved' },
      assertions: [refundAssertion(order.order_id, [{ amount, reason: 'late_delivery_compensation' }])],
    });
  },
};

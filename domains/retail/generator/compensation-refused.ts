import { percentOf, type Scenario } from 'finalstate/domain';
import { RETAIL_RULES } from '../policy.js';
import { initFor, makeCustomer, makeOrder, orderRequestDraft, pickProducts, refundAssertion } from './fixtures.js';

/** Late-delivery compensation that is not due: too early, on time, or already paid once. Nothing changes. */
export const compensationRefusedScenario: Scenario = {
  type: 'compensation_refused',
  profiles: ['full', 'mini'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const variant =
      ctx.profile === 'mini'
        ? ctx.rng.pick(['grace', 'on_time'] as const)
        : ctx.rng.pick(['grace', 'on_time', 'already_paid'] as const);
    const order = makeOrder(ctx, customer, {
      status: 'shipped',
      placedDaysAgo: ctx.rng.int(6, 15),
      lines: pickProducts(ctx.rng, 1, (p) => !p.final_sale && p.price < 450).map((product) => ({
        product,
        quantity: 1,
      })),
      shipment:
        variant === 'on_time'
          ? { status: 'in_transit', etaDaysAgo: -ctx.rng.int(1, 3) }
          : {
              status: 'delayed',
              etaDaysAgo:
                variant === 'grace' ? ctx.rng.int(0, RETAIL_RULES.lateDeliveryGraceDays - 1) : ctx.rng.int(4, 9),
            },
    });
    const earlier = percentOf(order.total, RETAIL_RULES.lateDeliveryPercent[customer.tier]!);
    const paid = variant === 'already_paid' ? [{ amount: earlier, reason: 'late_delivery_compensation' }] : [];
    const refunds = paid.map((r) => ({
      refund_id: `RF-E${ctx.n}`,
      order_id: order.order_id,
      ...r,
      note: 'Paid by phone support.',
      created_at: order.rows.orders.placed_at,
    }));
    return orderRequestDraft(ctx, {
      customer,
      orderId: order.order_id,
      init: initFor(customer, [order], refunds.length ? { refunds } : {}),
      miniQuery: `My order ${order.order_id} is late. Can I get compensation?`,
      fullQuery: `My order ${order.order_id} is taking forever. I want compensation for the delay.`,
      goal: `get compensation for order ${order.order_id}.`,
      actions: [],
      assertions: [refundAssertion(order.order_id, paid)],
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'no compensation promised',
          question: `Does the agent explain that no (further) compensation is due for order ${order.order_id} and avoid promising a refund?`,
        },
      ],
    });
  },
};

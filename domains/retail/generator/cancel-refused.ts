import type { Scenario } from 'finalstate/domain';
import { initFor, makeCustomer, makeOrder, orderRequestDraft, pickProducts, untouched } from './fixtures.js';

/** The order already left the warehouse: cancellation must be refused, nothing changes. */
export const cancelRefusedScenario: Scenario = {
  type: 'cancel_refused',
  profiles: ['full', 'mini'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const delivered = ctx.rng.chance(0.4);
    const order = makeOrder(ctx, customer, {
      status: delivered ? 'delivered' : 'shipped',
      placedDaysAgo: ctx.rng.int(4, 9),
      ...(delivered ? { deliveredDaysAgo: ctx.rng.int(0, 3) } : {}),
      lines: pickProducts(ctx.rng, 1).map((product) => ({ product, quantity: 1 })),
      shipment: delivered
        ? { status: 'delivered', etaDaysAgo: 1 }
        : { status: 'in_transit', etaDaysAgo: -ctx.rng.int(1, 3) },
    });
    const state = delivered ? 'been delivered' : 'shipped';
    return orderRequestDraft(ctx, {
      customer,
      orderId: order.order_id,
      init: initFor(customer, [order]),
      miniQuery: `Please cancel order ${order.order_id}.`,
      fullQuery: `Can you cancel my order ${order.order_id}? I don't want it anymore.`,
      goal: `cancel order ${order.order_id}; you did not know it had already ${state}.`,
      actions: [],
      assertions: untouched(customer, order.order_id),
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: `Does the agent decline to cancel order ${order.order_id} because it has already ${state}, without claiming it was cancelled?`,
        },
      ],
    });
  },
};

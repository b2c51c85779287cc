import type { Scenario } from 'finalstate/domain';
import { address, initFor, makeCustomer, makeOrder, orderRequestDraft, pickProducts, untouched } from './fixtures.js';

/** The order has shipped, so its address can no longer change: refuse. */
export const addressChangeRefusedScenario: Scenario = {
  type: 'address_change_refused',
  profiles: ['full', 'mini'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const order = makeOrder(ctx, customer, {
      status: 'shipped',
      placedDaysAgo: ctx.rng.int(2, 5),
      lines: pickProducts(ctx.rng, 1).map((product) => ({ product, quantity: 1 })),
      shipment: { status: ctx.rng.pick(['label_created', 'in_transit'] as const), etaDaysAgo: -ctx.rng.int(1, 4) },
    });
    const newAddress = address(ctx.rng);
    return orderRequestDraft(ctx, {
      customer,
      orderId: order.order_id,
      init: initFor(customer, [order]),
      miniQuery: `Please change the address of order ${order.order_id} to ${newAddress}.`,
      fullQuery: `I need my order ${order.order_id} to go to my new address.`,
      goal: `have order ${order.order_id} redirected to your new address, ${newAddress}.`,
      actions: [],
      assertions: untouched(customer, order.order_id),
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: `Does the agent explain that the address of order ${order.order_id} cannot be changed because it has already shipped?`,
        },
      ],
    });
  },
};

import { call, type Scenario } from 'finalstate/domain';
import { initFor, introduce, makeCustomer, makeOrder, pickProducts, untouched, userBrief } from './fixtures.js';

/** A pure information request: where is my order. No write and no ticket. */
export const orderStatusScenario: Scenario = {
  type: 'order_status',
  profiles: ['full'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const status = ctx.rng.pick(['label_created', 'in_transit', 'in_transit'] as const);
    const order = makeOrder(ctx, customer, {
      status: 'shipped',
      placedDaysAgo: ctx.rng.int(1, 4),
      lines: pickProducts(ctx.rng, ctx.rng.int(1, 3)).map((product) => ({ product, quantity: 1 })),
      shipment: { status, etaDaysAgo: -ctx.rng.int(1, 5) },
      speed: ctx.rng.pick(['standard', 'expedited'] as const),
    });
    const tracking = String(order.rows.shipments[0]!.tracking_number);
    const { intro, facts } = introduce(ctx, customer);
    return {
      query: `${intro} Where is my order ${order.order_id}? When will it arrive?`,
      userContext: userBrief(customer, `learn where order ${order.order_id} is and when it arrives.`, facts),
      userFacts: facts,
      init: initFor(customer, [order]),
      golden: [
        call('find_customer_by_email', { email: customer.email }),
        call('get_tracking', { order_id: order.order_id }),
      ],
      assertions: untouched(customer, order.order_id),
      rubrics: [{ kind: 'must_mention', description: 'gives the tracking number', text: tracking }],
    };
  },
};

import type { Scenario } from 'finalstate/domain';
import {
  escalated,
  identify,
  initFor,
  introduce,
  makeCustomer,
  makeOrder,
  pickProducts,
  refundAssertion,
  ticketAssertion,
  userBrief,
} from './fixtures.js';

/** Marked delivered but never received: the carrier-claims team investigates; no refund or replacement yet. */
export const missingPackageScenario: Scenario = {
  type: 'missing_package',
  profiles: ['full'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const deliveredDaysAgo = ctx.rng.int(0, 3);
    const order = makeOrder(ctx, customer, {
      status: 'delivered',
      placedDaysAgo: deliveredDaysAgo + ctx.rng.int(2, 6),
      deliveredDaysAgo,
      lines: pickProducts(ctx.rng, ctx.rng.int(1, 2)).map((product) => ({ product, quantity: 1 })),
      shipment: { status: 'delivered', etaDaysAgo: deliveredDaysAgo },
    });
    const { intro, facts } = introduce(ctx, customer);
    const allFacts = { ...facts, checked: 'I asked my neighbours and checked the mailroom; nothing is there' };
    return {
      tags: ['escalate'],
      query: `${intro} Tracking says order ${order.order_id} was delivered but I never got it. I want a refund.`,
      userContext: userBrief(customer, `get your missing order ${order.order_id} sorted out.`, allFacts),
      userFacts: allFacts,
      init: initFor(customer, [order]),
      golden: [
        ...identify(customer, order.order_id),
        ...escalated(customer, order.order_id, 'delivery', 'carrier_claims'),
      ],
      assertions: [
        refundAssertion(order.order_id, []),
        ticketAssertion(customer, { category: 'delivery', status: 'hold', team: 'carrier_claims' }),
      ],
    };
  },
};

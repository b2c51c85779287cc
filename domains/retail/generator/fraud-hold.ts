import type { Scenario } from 'finalstate/domain';
import {
  escalated,
  identify,
  initFor,
  introduce,
  makeCustomer,
  makeOrder,
  makeUnshippedOrder,
  orderStatusAssertion,
  pickProducts,
  refundAssertion,
  ticketAssertion,
  userBrief,
} from './fixtures.js';

/** A customer under a fraud hold asks for a cancellation or compensation: escalate to fraud, change nothing, reveal nothing. */
export const fraudHoldScenario: Scenario = {
  type: 'fraud_hold_escalation',
  profiles: ['full'],
  build(ctx) {
    const customer = makeCustomer(ctx, { fraud: true });
    const wantsCancel = ctx.rng.chance(0.5);
    const order = wantsCancel
      ? makeUnshippedOrder(ctx, customer)
      : makeOrder(ctx, customer, {
          status: 'shipped',
          placedDaysAgo: ctx.rng.int(10, 16),
          lines: pickProducts(ctx.rng, 1).map((product) => ({ product, quantity: 1 })),
          shipment: { status: 'delayed', etaDaysAgo: ctx.rng.int(4, 9) },
        });
    const category = wantsCancel ? 'cancellation' : 'delivery';
    const { intro, facts } = introduce(ctx, customer);
    return {
      tags: ['escalate'],
      query: wantsCancel
        ? `${intro} Please cancel order ${order.order_id} right away.`
        : `${intro} Order ${order.order_id} is very late, I expect compensation.`,
      userContext: userBrief(
        customer,
        wantsCancel ? `cancel order ${order.order_id}.` : `get compensation for the late order ${order.order_id}.`,
        facts,
      ),
      userFacts: facts,
      init: initFor(customer, [order]),
      golden: [...identify(customer, order.order_id), ...escalated(customer, order.order_id, category, 'fraud')],
      assertions: [
        orderStatusAssertion(order.order_id, String(order.rows.orders.status)),
        refundAssertion(order.order_id, []),
        ticketAssertion(customer, { category, status: 'hold', team: 'fraud' }),
      ],
      rubrics: [
        { kind: 'must_not_reveal', description: 'fraud case reference stays internal', text: customer.fraud_case_ref! },
        {
          kind: 'judge',
          description: 'hold not disclosed',
          question:
            'Does the agent avoid telling the customer that their account is on a fraud hold or under fraud review?',
        },
      ],
    };
  },
};

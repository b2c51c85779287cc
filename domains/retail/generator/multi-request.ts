import { call, type Scenario, sqlString } from 'finalstate/domain';
import {
  address,
  initFor,
  introduce,
  makeCustomer,
  makeUnshippedOrder,
  orderStatusAssertion,
  ticketAssertion,
  ticketed,
  userBrief,
} from './fixtures.js';

/** Two requests in one conversation: cancel one unshipped order and re-address another, under one ticket. */
export const multiRequestScenario: Scenario = {
  type: 'multi_request',
  profiles: ['full'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const cancelled = makeUnshippedOrder(ctx, customer, { suffix: 'A' });
    const moved = makeUnshippedOrder(ctx, customer, { suffix: 'B' });
    let newAddress = address(ctx.rng);
    while (newAddress === moved.address) newAddress = address(ctx.rng);
    const { intro, facts } = introduce(ctx, customer);
    const allFacts = { ...facts, new_address: newAddress };
    return {
      query: `${intro} Two things: please cancel order ${cancelled.order_id}, and send order ${moved.order_id} to my new address.`,
      userContext: userBrief(
        customer,
        `cancel ${cancelled.order_id} (you changed your mind) and have ${moved.order_id} shipped to your new address.`,
        allFacts,
      ),
      userFacts: allFacts,
      init: initFor(customer, [cancelled, moved]),
      golden: [
        call('find_customer_by_email', { email: customer.email }),
        call('get_order', { order_id: cancelled.order_id }),
        call('get_order', { order_id: moved.order_id }),
        ...ticketed(
          customer,
          cancelled.order_id,
          'cancellation',
          [
            call('cancel_order', { order_id: cancelled.order_id, reason: 'customer_request' }),
            call('update_shipping_address', { order_id: moved.order_id, address: newAddress }),
          ],
          'solved',
        ),
      ],
      assertions: [
        orderStatusAssertion(cancelled.order_id, 'cancelled'),
        {
          description: 'second order re-addressed',
          sql: `SELECT status, shipping_address FROM orders WHERE order_id = ${sqlString(moved.order_id)}`,
          expect: [{ status: moved.rows.orders.status, shipping_address: newAddress }],
        },
        ticketAssertion(customer, { category: 'cancellation', status: 'solved' }),
      ],
    };
  },
};

import { call, type Scenario, sqlString } from 'finalstate/domain';
import { address, initFor, makeCustomer, makeUnshippedOrder, orderRequestDraft } from './fixtures.js';

/** The customer moved: change the address of an unshipped order to the one they dictate. */
export const addressChangeScenario: Scenario = {
  type: 'address_change',
  profiles: ['full', 'mini'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const order = makeUnshippedOrder(ctx, customer);
    let newAddress = address(ctx.rng);
    while (newAddress === order.address) newAddress = address(ctx.rng);
    return orderRequestDraft(ctx, {
      customer,
      orderId: order.order_id,
      init: initFor(customer, [order]),
      miniQuery: `Please ship order ${order.order_id} to ${newAddress} instead.`,
      fullQuery: `I just moved. Could you change the delivery address on my order ${order.order_id}?`,
      goal: `have order ${order.order_id} delivered to your new address.`,
      facts: { new_address: newAddress },
      actions: [call('update_shipping_address', { order_id: order.order_id, address: newAddress })],
      ticket: { category: 'order_change', final: 'solved' },
      assertions: [
        {
          description: 'address replaced',
          sql: `SELECT shipping_address FROM orders WHERE order_id = ${sqlString(order.order_id)}`,
          expect: [{ shipping_address: newAddress }],
        },
      ],
    });
  },
};

import { addDays, call, iso, percentOf, type Scenario, sqlString } from 'finalstate/domain';
import { RETAIL_RULES } from '../policy.js';
import {
  initFor,
  introduce,
  makeCustomer,
  makeOrder,
  pickProducts,
  priorityOf,
  refundAssertion,
  userBrief,
} from './fixtures.js';

/** A follow-up on an existing open ticket: reuse it (fix its priority), pay the late-delivery compensation, solve it. */
export const ticketFollowupScenario: Scenario = {
  type: 'ticket_followup',
  profiles: ['full'],
  build(ctx) {
    const customer = makeCustomer(ctx, { tier: ctx.rng.pick(['plus', 'vip'] as const) });
    const order = makeOrder(ctx, customer, {
      status: 'shipped',
      placedDaysAgo: ctx.rng.int(12, 20),
      lines: pickProducts(ctx.rng, 1, (p) => !p.final_sale && p.price < 450).map((product) => ({
        product,
        quantity: 1,
      })),
      shipment: { status: 'delayed', etaDaysAgo: ctx.rng.int(5, 10) },
    });
    const ticketId = `TCK-E${ctx.n}`;
    const opened = iso(addDays(ctx.now, -ctx.rng.int(2, 4)));
    const ticket = {
      ticket_id: ticketId,
      customer_id: customer.customer_id,
      order_id: order.order_id,
      category: 'delivery',
      priority: 'normal',
      status: ctx.rng.pick(['open', 'pending']),
      assigned_team: null,
      subject: 'Where is my parcel?',
      notes: 'Customer asked for an update.',
      created_at: opened,
      updated_at: opened,
    };
    const amount = percentOf(order.total, RETAIL_RULES.lateDeliveryPercent[customer.tier]!);
    const { intro, facts } = introduce(ctx, customer);
    return {
      query: `${intro} I already contacted you about order ${order.order_id} a few days ago and it still hasn't come. This is getting ridiculous — I want compensation.`,
      userContext: userBrief(
        customer,
        `get compensation for the late order ${order.order_id}; you opened a ticket about it a few days ago.`,
        facts,
      ),
      userFacts: facts,
      init: initFor(customer, [order], { tickets: [ticket] }),
      golden: [
        call('find_customer_by_email', { email: customer.email }),
        call('list_tickets', { customer_id: customer.customer_id }),
        call('get_order', { order_id: order.order_id }),
        call('create_refund', { order_id: order.order_id, amount, reason: 'late_delivery_compensation' }),
        call('update_ticket', { ticket_id: ticketId, status: 'solved', priority: priorityOf(customer.tier) }),
      ],
      assertions: [
        refundAssertion(order.order_id, [{ amount, reason: 'late_delivery_compensation' }]),
        {
          description: 'the existing ticket is reused, re-prioritised and solved',
          sql: `SELECT ticket_id, priority, status FROM tickets WHERE customer_id = ${sqlString(customer.customer_id)}`,
          expect: [{ ticket_id: ticketId, priority: priorityOf(customer.tier), status: 'solved' }],
        },
      ],
    };
  },
};

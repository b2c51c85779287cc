import { addDays, call, fromCents, isoDate, type Scenario, sqlString, toCents } from 'finalstate/domain';
import { RETAIL_RULES } from '../policy.js';
import {
  identify,
  initFor,
  introduce,
  makeCustomer,
  makeOrder,
  pickProducts,
  refundAssertion,
  ticketAssertion,
  ticketed,
  userBrief,
} from './fixtures.js';

/** An item arrived broken: replace it when in stock (expedited for vip), otherwise refund the line. */
export const damagedOnArrivalScenario: Scenario = {
  type: 'damaged_on_arrival',
  profiles: ['full'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const inStock = ctx.rng.chance(0.6);
    const deliveredDaysAgo = ctx.rng.int(0, RETAIL_RULES.damageReportDays - 1);
    const product = pickProducts(ctx.rng, 1, (p) => !p.final_sale && p.price <= 199)[0]!;
    const order = makeOrder(ctx, customer, {
      status: 'delivered',
      placedDaysAgo: deliveredDaysAgo + ctx.rng.int(2, 4),
      deliveredDaysAgo,
      lines: [{ product, quantity: 1 }],
      shipment: { status: 'delivered', etaDaysAgo: deliveredDaysAgo },
    });
    const item = order.items[0]!;
    const stock = inStock
      ? { sku: product.sku, on_hand: ctx.rng.int(3, 30), restock_date: null }
      : { sku: product.sku, on_hand: 0, restock_date: isoDate(addDays(ctx.now, ctx.rng.int(10, 40))) };
    const speed = customer.tier === 'vip' ? 'expedited' : 'standard';
    const lineTotal = fromCents(toCents(item.unit_price) * item.quantity);
    const action = inStock
      ? call('create_replacement_order', { order_id: order.order_id, item_id: item.item_id, shipping_speed: speed })
      : call('create_refund', { order_id: order.order_id, amount: lineTotal, reason: 'damaged_item' });
    const { intro, facts } = introduce(ctx, customer);
    return {
      query: `${intro} My ${item.name} from order ${order.order_id} arrived broken: the casing is cracked and it won't switch on. What can you do?`,
      userContext: userBrief(
        customer,
        `get a working ${item.name} or your money back for order ${order.order_id}.`,
        facts,
      ),
      userFacts: facts,
      init: initFor(customer, [order], { inventory: [stock] }),
      golden: [
        ...identify(customer, order.order_id),
        call('get_product', { sku: product.sku }),
        ...ticketed(customer, order.order_id, 'delivery', [action], 'solved'),
      ],
      assertions: [
        inStock
          ? {
              description: 'replacement order shipped at the tier speed',
              sql: `SELECT o.status, o.shipping_speed, o.total::text AS total, i.sku FROM orders o JOIN order_items i ON i.order_id = o.order_id WHERE o.replacement_for = ${sqlString(order.order_id)}`,
              expect: [{ status: 'processing', shipping_speed: speed, total: '0.00', sku: product.sku }],
            }
          : refundAssertion(order.order_id, [{ amount: lineTotal, reason: 'damaged_item' }]),
        ticketAssertion(customer, { category: 'delivery', status: 'solved' }),
      ],
    };
  },
};

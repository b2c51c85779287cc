import {
  type Assertion,
  beyondDays,
  call,
  fromCents,
  type Scenario,
  sqlString,
  toCents,
  type ToolCall,
  withinDays,
} from 'finalstate/domain';
import { RETAIL_RULES } from '../policy.js';
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
  ticketed,
  untouched,
  userBrief,
} from './fixtures.js';

/**
 * The price dropped after the purchase. Within the adjustment window the difference is refunded (plus, vip) or
 * credited (standard); above the approval threshold it goes to a supervisor; outside the window it is refused.
 */
export const priceAdjustmentScenario: Scenario = {
  type: 'price_adjustment',
  profiles: ['full'],
  build(ctx) {
    const variant = ctx.rng.pick(['grant', 'grant', 'approval', 'too_old'] as const);
    const customer = makeCustomer(ctx);
    const product = pickProducts(
      ctx.rng,
      1,
      (p) => !p.final_sale && (variant === 'approval' ? p.price > 600 : p.price < 500),
    )[0]!;
    const quantity = variant === 'approval' ? 1 : ctx.rng.int(1, 2);
    const dropPercent = variant === 'approval' ? ctx.rng.int(35, 45) : ctx.rng.int(5, 20);
    const newPrice = Math.max(1, Math.floor(product.price * (1 - dropPercent / 100)));
    const window = RETAIL_RULES.priceAdjustmentDays;
    const placedDaysAgo = variant === 'too_old' ? beyondDays(ctx.rng, window) : withinDays(ctx.rng, window);
    const order = makeOrder(ctx, customer, {
      status: 'delivered',
      placedDaysAgo,
      deliveredDaysAgo: Math.max(0, placedDaysAgo - 3),
      lines: [{ product, quantity }],
      shipment: { status: 'delivered', etaDaysAgo: Math.max(0, placedDaysAgo - 3) },
    });
    const difference = fromCents((toCents(product.price) - toCents(newPrice)) * quantity);
    const init = initFor(customer, [order], { products: [{ ...product, price: newPrice }] });
    const { intro, facts } = introduce(ctx, customer);
    const base = {
      query: `${intro} I bought the ${product.name} (order ${order.order_id}) and now it's $${newPrice} on your site. Can I get the difference back?`,
      userContext: userBrief(
        customer,
        `get the price difference for the ${product.name} on order ${order.order_id}.`,
        facts,
      ),
      userFacts: facts,
      init,
    };
    const lookups: ToolCall[] = [...identify(customer, order.order_id), call('get_product', { sku: product.sku })];
    if (variant === 'too_old') {
      return { ...base, tags: ['refuse'], golden: lookups, assertions: untouched(customer, order.order_id) };
    }
    if (difference > RETAIL_RULES.approvalThreshold) {
      return {
        ...base,
        tags: ['escalate', 'supervisor-approval'],
        golden: [...lookups, ...escalated(customer, order.order_id, 'refund', 'supervisor')],
        assertions: [
          refundAssertion(order.order_id, []),
          ticketAssertion(customer, { category: 'refund', status: 'hold', team: 'supervisor' }),
        ],
      };
    }
    const asCredit = customer.tier === 'standard';
    const action = asCredit
      ? call('issue_store_credit', {
          customer_id: customer.customer_id,
          amount: difference,
          reason: 'price_adjustment',
          order_id: order.order_id,
        })
      : call('create_refund', { order_id: order.order_id, amount: difference, reason: 'price_adjustment' });
    const credits: Assertion = {
      description: 'store credit for standard customers only',
      sql: `SELECT amount::text AS amount, reason FROM store_credits WHERE customer_id = ${sqlString(customer.customer_id)}`,
      expect: asCredit ? [{ amount: difference.toFixed(2), reason: 'price_adjustment' }] : [],
    };
    return {
      ...base,
      golden: [...lookups, ...ticketed(customer, order.order_id, 'refund', [action], 'solved')],
      assertions: [
        credits,
        refundAssertion(order.order_id, asCredit ? [] : [{ amount: difference, reason: 'price_adjustment' }]),
        ticketAssertion(customer, { category: 'refund', status: 'solved' }),
      ],
    };
  },
};

import { call, fromCents, percentOf, type Scenario, sqlString, toCents, withinDays } from 'finalstate/domain';
import { RETAIL_RULES } from '../policy.js';
import { DEFECT_REASONS } from '../schema.js';
import { initFor, makeCustomer, makeOrder, orderRequestDraft, pickProducts } from './fixtures.js';

/** How a customer describes each return reason; the agent maps it to the enum. */
export const REASON_STORIES = {
  changed_mind: 'I changed my mind, I do not need it after all',
  not_as_described: 'it is not what the product page described',
  defective: 'it stopped working after a few days',
  damaged_in_transit: 'the casing was cracked when I unpacked it',
  wrong_item: 'you sent me a different model from the one I ordered',
} as const;
export type ReturnReason = keyof typeof REASON_STORIES;

export const isDefect = (reason: ReturnReason) => (DEFECT_REASONS as readonly string[]).includes(reason);

/** An eligible return: open the RMA with the restocking fee the policy gives, and hold the ticket for the item. */
export const returnItemScenario: Scenario = {
  type: 'return_item',
  profiles: ['full', 'mini'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const reasons = Object.keys(REASON_STORIES) as ReturnReason[];
    const reason = ctx.rng.pick(ctx.profile === 'mini' ? reasons.filter((r) => r !== 'wrong_item') : reasons);
    const defect = isDefect(reason);
    const window = defect ? RETAIL_RULES.defectWindowDays : RETAIL_RULES.returnWindowDays[customer.tier]!;
    // Damage reported within the damage window is a replacement case (policy 4.2), not a return.
    const minDays = reason === 'damaged_in_transit' ? RETAIL_RULES.damageReportDays + 2 : 1;
    const deliveredDaysAgo = Math.max(minDays, withinDays(ctx.rng, window));
    const opened = ctx.rng.chance(0.6);
    const order = makeOrder(ctx, customer, {
      status: 'delivered',
      placedDaysAgo: deliveredDaysAgo + ctx.rng.int(2, 5),
      deliveredDaysAgo,
      lines: pickProducts(ctx.rng, 1).map((product) => ({ product, quantity: ctx.rng.int(1, 2) })),
      shipment: { status: 'delivered', etaDaysAgo: deliveredDaysAgo },
    });
    const item = order.items[0]!;
    const lineTotal = fromCents(toCents(item.unit_price) * item.quantity);
    const fee =
      customer.tier === 'standard' && opened && !defect ? percentOf(lineTotal, RETAIL_RULES.restockingFeePercent) : 0;
    // A standard customer told of a restocking fee may withdraw the return (full profile only).
    const declines = ctx.profile === 'full' && fee > 0 && ctx.rng.chance(0.5);
    const decisions = ctx.profile === 'full' && fee > 0 ? { accept_restocking_fee: !declines } : undefined;
    return orderRequestDraft(ctx, {
      customer,
      orderId: order.order_id,
      init: initFor(customer, [order]),
      miniQuery: `I want to return item ${item.item_id} of order ${order.order_id}. Reason: ${reason}. The box is ${opened ? 'opened' : 'unopened'}.`,
      fullQuery: `I'd like to return the ${item.name} from order ${order.order_id}.`,
      goal: `return the ${item.name} from order ${order.order_id}${declines ? ', but only if it costs you nothing' : ''}.`,
      facts: {
        return_reason: REASON_STORIES[reason],
        packaging: opened ? 'I opened the box and used it' : 'the box is still sealed',
      },
      ...(decisions ? { decisions } : {}),
      actions: declines
        ? []
        : [
            call('create_return', {
              order_id: order.order_id,
              item_id: item.item_id,
              reason,
              item_opened: opened,
              restocking_fee: fee,
            }),
          ],
      ...(declines ? { tags: ['declined'] } : { ticket: { category: 'return', final: 'hold' as const } }),
      assertions: [
        {
          description: declines ? 'no RMA: the customer declined the fee' : 'one RMA with the policy fee',
          sql: `SELECT item_id, reason, restocking_fee::text AS fee, refund_amount::text AS refund FROM returns WHERE order_id = ${sqlString(order.order_id)}`,
          expect: declines
            ? []
            : [
                {
                  item_id: item.item_id,
                  reason,
                  fee: fee.toFixed(2),
                  refund: fromCents(toCents(lineTotal) - toCents(fee)).toFixed(2),
                },
              ],
        },
      ],
    });
  },
};

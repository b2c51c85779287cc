import { beyondDays, type Scenario, withinDays } from 'finalstate/domain';
import { RETAIL_RULES } from '../policy.js';
import { initFor, makeCustomer, makeOrder, orderRequestDraft, pickProducts, untouched } from './fixtures.js';
import { REASON_STORIES, isDefect, type ReturnReason } from './return-item.js';

/** A return the policy does not allow: past the window, or a final-sale item returned for a non-defect reason. */
export const returnRefusedScenario: Scenario = {
  type: 'return_refused',
  profiles: ['full', 'mini'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const finalSale = ctx.profile === 'full' && ctx.rng.chance(0.35);
    const reasons = (Object.keys(REASON_STORIES) as ReturnReason[]).filter((r) =>
      finalSale ? !isDefect(r) : r !== 'damaged_in_transit' && r !== 'wrong_item',
    );
    const reason = ctx.rng.pick(reasons);
    const window = isDefect(reason) ? RETAIL_RULES.defectWindowDays : RETAIL_RULES.returnWindowDays[customer.tier]!;
    const deliveredDaysAgo = finalSale
      ? withinDays(ctx.rng, RETAIL_RULES.returnWindowDays.standard!)
      : beyondDays(ctx.rng, window);
    const opened = ctx.rng.chance(0.5);
    const order = makeOrder(ctx, customer, {
      status: 'delivered',
      placedDaysAgo: deliveredDaysAgo + ctx.rng.int(2, 5),
      deliveredDaysAgo,
      lines: pickProducts(ctx.rng, 1, (p) => p.final_sale === finalSale).map((product) => ({ product, quantity: 1 })),
      shipment: { status: 'delivered', etaDaysAgo: deliveredDaysAgo },
    });
    const item = order.items[0]!;
    const why = finalSale ? 'it is a final-sale item' : 'the return window has passed';
    return orderRequestDraft(ctx, {
      customer,
      orderId: order.order_id,
      init: initFor(customer, [order]),
      miniQuery: `I want to return item ${item.item_id} of order ${order.order_id}. Reason: ${reason}. The box is ${opened ? 'opened' : 'unopened'}.`,
      fullQuery: `I want to send back the ${item.name} from order ${order.order_id}; ${REASON_STORIES[reason]}.`,
      goal: `return the ${item.name} from order ${order.order_id}.`,
      actions: [],
      assertions: untouched(customer, order.order_id),
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: `Does the agent decline the return of ${item.item_id} and explain that ${why}?`,
        },
      ],
    });
  },
};

import {
  fromCents,
  goldenArguments,
  initRow,
  percentOf,
  type TaskInput,
  toCents,
  type ToolCall,
  withArguments,
} from 'finalstate/domain';
import { isDefect, type ReturnReason } from './generator/return-item.js';
import { RETAIL_RULES } from './policy.js';

/**
 * Retail's rule-breaking paths (DomainDefinition.ruleBreakingPath): per mini task family, what a careless agent that
 * knows the tools does against one rule of the mini policy. Cancellations and address changes of shipped orders have
 * none: cancel_order and update_shipping_address refuse them.
 */
export function retailRuleBreakingPath(task: TaskInput): ToolCall[] | undefined {
  const family = task.tags?.[0] ?? '';
  return task.profile === 'mini' && Object.hasOwn(paths, family) ? paths[family]!(task) : undefined;
}

const R = RETAIL_RULES;

const paths: Record<string, (task: TaskInput) => ToolCall[] | undefined> = {
  // Compensation is due only for a delayed shipment at least 3 days past its estimate: pays the tier's rate anyway.
  compensation_refused(task) {
    const order = orderOf(task);
    if (!order) return undefined;
    const amount = percentOf(order.total, R.lateDeliveryPercent[order.tier]!);
    return [...task.golden, refund(order.id, amount)];
  },
  // The rate depends on the tier (20% for vip, 10% otherwise): pays the other one.
  late_delivery_compensation(task) {
    const order = orderOf(task);
    if (!order) return undefined;
    const rate = order.tier === 'vip' ? R.lateDeliveryPercent.standard! : R.lateDeliveryPercent.vip!;
    return withArguments(task, 'create_refund', { amount: percentOf(order.total, rate) });
  },
  // Returns only within the tier's (or the defect) window: opens the return past it, with the fee the rule gives.
  return_refused(task) {
    const order = orderOf(task);
    const asked = /item (\S+) of order \S+\. Reason: (\w+)\. The box is (opened|unopened)\./.exec(task.query);
    const item = asked && initRow(task, 'order_items', (i) => i.item_id === asked[1] && i.order_id === order?.id);
    if (!order || !asked || !item) return undefined;
    const reason = asked[2] as ReturnReason;
    const opened = asked[3] === 'opened';
    const lineTotal = fromCents(toCents(Number(item.unit_price)) * Number(item.quantity));
    const fee = order.tier === 'standard' && opened && !isDefect(reason) ? restockingFee(lineTotal) : 0;
    return [
      ...task.golden,
      {
        tool: 'create_return',
        arguments: { order_id: order.id, item_id: item.item_id, reason, item_opened: opened, restocking_fee: fee },
      },
    ];
  },
  // The restocking fee is for a standard-tier opened item returned for a non-defect reason only: waives it where it
  // applies, charges it on an opened item where it does not.
  return_item(task) {
    const rma = goldenArguments(task, 'create_return');
    const item = rma && initRow(task, 'order_items', (i) => i.item_id === rma.item_id);
    if (!rma || !item) return undefined;
    if (Number(rma.restocking_fee) > 0) return withArguments(task, 'create_return', { restocking_fee: 0 });
    if (rma.item_opened !== true) return undefined;
    const lineTotal = fromCents(toCents(Number(item.unit_price)) * Number(item.quantity));
    return withArguments(task, 'create_return', { restocking_fee: restockingFee(lineTotal) });
  },
};

/** The order a mini task is about (its golden get_order) and its customer's tier. */
function orderOf(task: TaskInput): { id: string; total: number; tier: string } | undefined {
  const id = goldenArguments(task, 'get_order')?.order_id;
  const order = initRow(task, 'orders', (o) => o.order_id === id);
  const customer = order && initRow(task, 'customers', (c) => c.customer_id === order.customer_id);
  if (typeof id !== 'string' || !order || !customer) return undefined;
  return { id, total: Number(order.total), tier: String(customer.tier) };
}

const restockingFee = (lineTotal: number) => percentOf(lineTotal, R.restockingFeePercent);

const refund = (orderId: string, amount: number): ToolCall => ({
  tool: 'create_refund',
  arguments: { order_id: orderId, amount, reason: 'late_delivery_compensation' },
});

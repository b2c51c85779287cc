import {
  addDays,
  addHours,
  type Assertion,
  call,
  escalationCalls,
  FIRST_NAMES,
  fromCents,
  introduce as introduceAs,
  iso,
  LAST_NAMES,
  type Party,
  type Prng,
  type RefRequest,
  requestDraft,
  type RequestVocabulary,
  type ScenarioContext,
  sqlString,
  type TaskDraft,
  ticketCalls,
  ticketStateAssertion,
  toCents,
  type ToolCall,
  userBrief as briefFor,
} from 'finalstate/domain';

import { RETAIL_RULES } from '../policy.js';
import { CATALOGUE, retailSequences, type CatalogueProduct } from '../seed.js';

type Row = Record<string, unknown>;
export type Tier = 'standard' | 'plus' | 'vip';

const STREETS = ['Maple Ave', 'Harbor Rd', 'Elm St', 'Sunset Blvd', 'Cedar Ln', 'Mill St', 'Park Pl', 'Riverside Dr'];
const CITIES = [
  ['Portland', 'OR', '97201'],
  ['Austin', 'TX', '78701'],
  ['Denver', 'CO', '80202'],
  ['Boston', 'MA', '02108'],
  ['Madison', 'WI', '53703'],
  ['Raleigh', 'NC', '27601'],
] as const;

export interface Customer {
  customer_id: string;
  full_name: string;
  first_name: string;
  email: string;
  phone: string;
  postal_code: string;
  tier: Tier;
  fraud_hold: boolean;
  fraud_case_ref: string | null;
}

export function address(rng: Prng): string {
  const [city, state, zip] = rng.pick(CITIES);
  return `${rng.int(2, 998)} ${rng.pick(STREETS)}, ${city}, ${state} ${zip}`;
}

export function makeCustomer(ctx: ScenarioContext, options: { tier?: Tier; fraud?: boolean } = {}): Customer {
  const first = ctx.rng.pick(FIRST_NAMES);
  const last = ctx.rng.pick(LAST_NAMES);
  const [, , zip] = ctx.rng.pick(CITIES);
  return {
    customer_id: `CUS-${ctx.n}`,
    full_name: `${first} ${last}`,
    first_name: first,
    email: `${first}.${last}.${ctx.n}@example.com`.toLowerCase(),
    phone: `+1 555 ${String(ctx.n % 10_000).padStart(4, '0')}`,
    postal_code: zip,
    tier: options.tier ?? ctx.rng.pick(['standard', 'standard', 'plus', 'vip'] as const),
    fraud_hold: options.fraud ?? false,
    fraud_case_ref: options.fraud ? `FRC-${ctx.n}` : null,
  };
}

export interface LineSpec {
  product: CatalogueProduct;
  quantity: number;
}

export interface OrderSpec {
  /** Distinguishes a customer's second order in the same task. */
  suffix?: string;
  status: 'pending_payment' | 'processing' | 'shipped' | 'delivered' | 'cancelled';
  placedDaysAgo: number;
  /** Days since delivery, for delivered orders. */
  deliveredDaysAgo?: number;
  lines: LineSpec[];
  shipment?: { status: 'label_created' | 'in_transit' | 'delayed' | 'delivered' | 'exception'; etaDaysAgo: number };
  speed?: 'standard' | 'expedited';
}

export interface Order {
  order_id: string;
  total: number;
  address: string;
  items: { item_id: string; sku: string; name: string; quantity: number; unit_price: number; final_sale: boolean }[];
  rows: { orders: Row; order_items: Row[]; payments: Row[]; shipments: Row[] };
}

export function pickProducts(
  rng: Prng,
  count: number,
  filter: (p: CatalogueProduct) => boolean = (p) => !p.final_sale,
): CatalogueProduct[] {
  const pool = CATALOGUE.filter(filter);
  const chosen: CatalogueProduct[] = [];
  while (chosen.length < count) {
    const p = rng.pick(pool);
    if (!chosen.includes(p)) chosen.push(p);
  }
  return chosen;
}

/** An order of `customer` with its items, payment and shipment rows, dated relative to the task clock. */
export function makeOrder(ctx: ScenarioContext, customer: Customer, spec: OrderSpec): Order {
  const orderId = `ORD-${ctx.n}${spec.suffix ?? ''}`;
  const placed = addHours(addDays(ctx.now, -spec.placedDaysAgo), -ctx.rng.int(1, 6));
  const items = spec.lines.map((line, i) => ({
    item_id: `${orderId}-${i + 1}`,
    sku: line.product.sku,
    name: line.product.name,
    quantity: line.quantity,
    unit_price: line.product.price,
    final_sale: line.product.final_sale,
  }));
  const total = fromCents(items.reduce((sum, item) => sum + toCents(item.unit_price) * item.quantity, 0));
  const addr = address(ctx.rng);
  const delivered =
    spec.deliveredDaysAgo === undefined
      ? null
      : iso(addHours(addDays(ctx.now, -spec.deliveredDaysAgo), -ctx.rng.int(1, 8)));
  const paymentStatus = spec.status === 'pending_payment' ? 'authorized' : 'captured';
  return {
    order_id: orderId,
    total,
    address: addr,
    items,
    rows: {
      orders: {
        order_id: orderId,
        customer_id: customer.customer_id,
        status: spec.status,
        placed_at: iso(placed),
        delivered_at: delivered,
        shipping_address: addr,
        shipping_speed: spec.speed ?? 'standard',
        shipping_fee: 0,
        total,
        cancel_reason: null,
        replacement_for: null,
      },
      order_items: items.map((item) => ({
        item_id: item.item_id,
        order_id: orderId,
        sku: item.sku,
        quantity: item.quantity,
        unit_price: item.unit_price,
        status: 'ordered',
      })),
      payments: [
        {
          payment_id: `PAY-${ctx.n}${spec.suffix ?? ''}`,
          order_id: orderId,
          method: ctx.rng.pick(['card', 'card', 'paypal']),
          amount: total,
          status: paymentStatus,
        },
      ],
      shipments: spec.shipment
        ? [
            {
              shipment_id: `SHP-${ctx.n}${spec.suffix ?? ''}`,
              order_id: orderId,
              carrier: ctx.rng.pick(['UPS', 'FedEx', 'USPS']),
              tracking_number: `TRK${ctx.n}${spec.suffix ?? ''}`,
              status: spec.shipment.status,
              estimated_delivery: iso(addHours(addDays(ctx.now, -spec.shipment.etaDaysAgo), -ctx.rng.int(1, 6))),
            },
          ]
        : [],
    },
  };
}

export function customerRow(customer: Customer): Row {
  const { first_name: _unused, ...row } = customer;
  return { ...row, created_at: '2025-01-15T10:00:00Z' };
}

/** Init upserts in dependency order: customer, orders, their items, payments and shipments, then any extra tables. */
export function initFor(
  customer: Customer,
  orders: Order[],
  extra: Record<string, Row[]> = {},
): { upsert: Record<string, Row[]> } {
  return {
    upsert: {
      customers: [customerRow(customer)],
      ...(extra.products ? { products: extra.products } : {}),
      ...(extra.inventory ? { inventory: extra.inventory } : {}),
      orders: orders.map((o) => o.rows.orders),
      order_items: orders.flatMap((o) => o.rows.order_items),
      payments: orders.flatMap((o) => o.rows.payments),
      shipments: orders.flatMap((o) => o.rows.shipments),
      ...Object.fromEntries(Object.entries(extra).filter(([table]) => table !== 'products' && table !== 'inventory')),
    },
  };
}

export const priorityOf = (tier: Tier): string => RETAIL_RULES.priority[tier]!;

export function introduce(ctx: ScenarioContext, customer: Customer): { intro: string; facts: Record<string, string> } {
  return introduceAs(ctx.rng, customer.full_name, customer.email);
}

export function userBrief(customer: Customer, goal: string, facts: Record<string, string>): string {
  return briefFor(`${customer.full_name}, a ${customer.tier}-tier customer of Northwind Home & Tech`, goal, facts);
}

/** The identification calls every full-profile solution starts with. */
export function identify(customer: Customer, orderId: string): ToolCall[] {
  return [call('find_customer_by_email', { email: customer.email }), call('get_order', { order_id: orderId })];
}

/** The id the episode's first create_ticket returns (sequences restart per episode). */
export const FIRST_TICKET = `${retailSequences.ticket.prefix}${retailSequences.ticket.start}`;

type CustomerParty = Customer & Party;
const asParty = (customer: Customer): CustomerParty => ({ ...customer, id: customer.customer_id });

export const retailVocabulary: RequestVocabulary<CustomerParty> = {
  partyKey: 'customer_id',
  refKey: 'order_id',
  identifyTool: 'find_customer_by_email',
  lookupTool: 'get_order',
  firstTicket: FIRST_TICKET,
  persona: (c) => `${c.full_name}, a ${c.tier}-tier customer of Northwind Home & Tech`,
  priority: (c) => priorityOf(c.tier),
};

/** A full-profile write: open the ticket, perform the actions, then close the ticket with `final`. */
export function ticketed(
  customer: Customer,
  orderId: string | undefined,
  category: string,
  actions: ToolCall[],
  final: 'solved' | 'hold',
): ToolCall[] {
  return ticketCalls(retailVocabulary, asParty(customer), orderId, { category, final }, actions);
}

/** A full-profile escalation: the ticket goes on hold with `team`; nothing else changes. */
export function escalated(customer: Customer, orderId: string | undefined, category: string, team: string): ToolCall[] {
  return escalationCalls(retailVocabulary, asParty(customer), orderId, { category, team });
}

export function ticketAssertion(
  customer: Customer,
  expected: { category: string; status: string; team?: string | null },
): Assertion {
  return ticketStateAssertion(retailVocabulary, asParty(customer), expected);
}

/** Refusals and information requests leave no trace: no ticket, no audit row for the customer's records. */
export function untouched(customer: Customer, orderId: string): Assertion[] {
  return [
    {
      description: 'no ticket was opened',
      sql: `SELECT count(*)::int AS n FROM tickets WHERE customer_id = ${sqlString(customer.customer_id)}`,
      expect: [{ n: 0 }],
    },
    {
      description: 'nothing was audited',
      sql: `SELECT count(*)::int AS n FROM audit_log WHERE entity_id IN (${sqlString(orderId)}, ${sqlString(customer.customer_id)}) OR entity_id LIKE ${sqlString(`${orderId}-%`)}`,
      expect: [{ n: 0 }],
    },
  ];
}

export function orderStatusAssertion(orderId: string, status: string): Assertion {
  return {
    description: `order ${orderId} is ${status}`,
    sql: `SELECT status FROM orders WHERE order_id = ${sqlString(orderId)}`,
    expect: [{ status }],
  };
}

export function refundAssertion(orderId: string, refunds: { amount: number; reason: string }[]): Assertion {
  return {
    description: `refunds of ${orderId}`,
    sql: `SELECT amount::text AS amount, reason FROM refunds WHERE order_id = ${sqlString(orderId)}`,
    expect: refunds.map((r) => ({ amount: r.amount.toFixed(2), reason: r.reason })),
  };
}

/** A request about one order (see common/requests.ts), for a retail customer. */
export type OrderRequest = Omit<RefRequest<CustomerParty>, 'party' | 'refId'> & { customer: Customer; orderId: string };

export function orderRequestDraft(ctx: ScenarioContext, req: OrderRequest): TaskDraft {
  const { customer, orderId, ...rest } = req;
  return requestDraft(retailVocabulary, ctx, { ...rest, party: asParty(customer), refId: orderId });
}

/** An order the warehouse has not picked yet (processing or pending_payment), placed in the last two days. */
export function makeUnshippedOrder(
  ctx: ScenarioContext,
  customer: Customer,
  options: { lines?: number; maxQuantity?: number; suffix?: string } = {},
): Order {
  return makeOrder(ctx, customer, {
    ...(options.suffix ? { suffix: options.suffix } : {}),
    status: ctx.rng.pick(['processing', 'pending_payment'] as const),
    placedDaysAgo: ctx.rng.int(0, 2),
    lines: pickProducts(ctx.rng, options.lines ?? 1).map((product) => ({
      product,
      quantity: ctx.rng.int(1, options.maxQuantity ?? 1),
    })),
  });
}

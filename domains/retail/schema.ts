import { auditTableSql, type TicketSystem, ticketTableSql } from 'finalstate/domain';

export const ORDER_STATUSES = ['pending_payment', 'processing', 'shipped', 'delivered', 'cancelled'] as const;
export const RETURN_REASONS = [
  'changed_mind',
  'not_as_described',
  'defective',
  'damaged_in_transit',
  'wrong_item',
] as const;
/** Return reasons that count as a defect: no restocking fee and the longer defect window. */
export const DEFECT_REASONS = ['defective', 'damaged_in_transit', 'wrong_item'] as const;
export const REFUND_REASONS = ['late_delivery_compensation', 'price_adjustment', 'damaged_item', 'goodwill'] as const;
export const CANCEL_REASONS = ['customer_request', 'ordered_by_mistake', 'duplicate_order'] as const;

export const retailTickets: TicketSystem = {
  partyTable: 'customers',
  partyKey: 'customer_id',
  partyLabel: 'customer',
  refTable: 'orders',
  refKey: 'order_id',
  refLabel: 'order',
  categories: ['cancellation', 'order_change', 'delivery', 'return', 'refund', 'account', 'general'],
  teams: ['supervisor', 'fraud', 'carrier_claims'],
};

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

/** The retail back office: customers, catalogue, stock, orders, payments, shipping, returns, refunds, credits, tickets, audit. */
export const retailSchemaSql = `
CREATE TABLE customers (
  customer_id     text PRIMARY KEY,
  full_name       text NOT NULL,
  email           text NOT NULL UNIQUE,
  phone           text NOT NULL,
  postal_code     text NOT NULL,
  tier            text NOT NULL CHECK (tier IN ('standard', 'plus', 'vip')),
  fraud_hold      boolean NOT NULL DEFAULT false,
  fraud_case_ref  text,
  created_at      timestamptz NOT NULL
);

CREATE TABLE products (
  sku         text PRIMARY KEY,
  name        text NOT NULL,
  category    text NOT NULL,
  price       numeric(10,2) NOT NULL CHECK (price > 0),
  final_sale  boolean NOT NULL DEFAULT false
);

CREATE TABLE inventory (
  sku           text PRIMARY KEY REFERENCES products(sku) DEFERRABLE INITIALLY DEFERRED,
  on_hand       integer NOT NULL CHECK (on_hand >= 0),
  restock_date  date
);

CREATE TABLE orders (
  order_id          text PRIMARY KEY,
  customer_id       text NOT NULL REFERENCES customers(customer_id) DEFERRABLE INITIALLY DEFERRED,
  status            text NOT NULL CHECK (status IN (${list(ORDER_STATUSES)})),
  placed_at         timestamptz NOT NULL,
  delivered_at      timestamptz,
  shipping_address  text NOT NULL,
  shipping_speed    text NOT NULL CHECK (shipping_speed IN ('standard', 'expedited')),
  shipping_fee      numeric(10,2) NOT NULL DEFAULT 0,
  total             numeric(10,2) NOT NULL CHECK (total >= 0),
  cancel_reason     text CHECK (cancel_reason IN (${list(CANCEL_REASONS)})),
  replacement_for   text REFERENCES orders(order_id) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE order_items (
  item_id     text PRIMARY KEY,
  order_id    text NOT NULL REFERENCES orders(order_id) DEFERRABLE INITIALLY DEFERRED,
  sku         text NOT NULL REFERENCES products(sku) DEFERRABLE INITIALLY DEFERRED,
  quantity    integer NOT NULL CHECK (quantity > 0),
  unit_price  numeric(10,2) NOT NULL CHECK (unit_price >= 0),
  status      text NOT NULL CHECK (status IN ('ordered', 'return_requested', 'returned', 'replaced'))
);

CREATE TABLE payments (
  payment_id  text PRIMARY KEY,
  order_id    text NOT NULL REFERENCES orders(order_id) DEFERRABLE INITIALLY DEFERRED,
  method      text NOT NULL CHECK (method IN ('card', 'paypal', 'gift_card')),
  amount      numeric(10,2) NOT NULL CHECK (amount >= 0),
  status      text NOT NULL CHECK (status IN ('authorized', 'captured', 'voided', 'refunded'))
);

CREATE TABLE shipments (
  shipment_id         text PRIMARY KEY,
  order_id            text NOT NULL REFERENCES orders(order_id) DEFERRABLE INITIALLY DEFERRED,
  carrier             text NOT NULL,
  tracking_number     text NOT NULL,
  status              text NOT NULL CHECK (status IN ('label_created', 'in_transit', 'delayed', 'delivered', 'exception')),
  estimated_delivery  timestamptz NOT NULL
);

CREATE TABLE returns (
  rma_id          text PRIMARY KEY,
  order_id        text NOT NULL REFERENCES orders(order_id) DEFERRABLE INITIALLY DEFERRED,
  item_id         text NOT NULL UNIQUE REFERENCES order_items(item_id) DEFERRABLE INITIALLY DEFERRED,
  reason          text NOT NULL CHECK (reason IN (${list(RETURN_REASONS)})),
  item_opened     boolean NOT NULL,
  restocking_fee  numeric(10,2) NOT NULL CHECK (restocking_fee >= 0),
  refund_amount   numeric(10,2) NOT NULL CHECK (refund_amount >= 0),
  status          text NOT NULL CHECK (status IN ('awaiting_item', 'received', 'refunded')),
  created_at      timestamptz NOT NULL
);

CREATE TABLE refunds (
  refund_id   text PRIMARY KEY,
  order_id    text NOT NULL REFERENCES orders(order_id) DEFERRABLE INITIALLY DEFERRED,
  amount      numeric(10,2) NOT NULL CHECK (amount > 0),
  reason      text NOT NULL CHECK (reason IN (${list(REFUND_REASONS)})),
  note        text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL
);

CREATE TABLE store_credits (
  credit_id    text PRIMARY KEY,
  customer_id  text NOT NULL REFERENCES customers(customer_id) DEFERRABLE INITIALLY DEFERRED,
  order_id     text REFERENCES orders(order_id) DEFERRABLE INITIALLY DEFERRED,
  amount       numeric(10,2) NOT NULL CHECK (amount > 0),
  reason       text NOT NULL CHECK (reason IN ('price_adjustment', 'goodwill')),
  created_at   timestamptz NOT NULL
);
${ticketTableSql(retailTickets)}${auditTableSql}`;

/** The catalogue and a few long-standing customers every retail episode starts from; tasks add their own rows on top. */

export interface CatalogueProduct {
  sku: string;
  name: string;
  category: string;
  price: number;
  final_sale: boolean;
}

export const CATALOGUE: readonly CatalogueProduct[] = [
  {
    sku: 'SKU-HDP-200',
    name: 'Wireless noise-cancelling headphones',
    category: 'audio',
    price: 199.0,
    final_sale: false,
  },
  { sku: 'SKU-SPK-110', name: 'Bluetooth bookshelf speaker', category: 'audio', price: 89.5, final_sale: false },
  { sku: 'SKU-SBR-450', name: 'Dolby Atmos soundbar', category: 'audio', price: 449.0, final_sale: false },
  { sku: 'SKU-TV-550', name: '55-inch 4K television', category: 'video', price: 629.0, final_sale: false },
  { sku: 'SKU-PRJ-300', name: 'Portable mini projector', category: 'video', price: 279.99, final_sale: false },
  { sku: 'SKU-LAP-140', name: '14-inch ultrabook laptop', category: 'computing', price: 1149.0, final_sale: false },
  { sku: 'SKU-MON-270', name: '27-inch QHD monitor', category: 'computing', price: 319.0, final_sale: false },
  { sku: 'SKU-KBD-080', name: 'Mechanical keyboard', category: 'computing', price: 79.99, final_sale: false },
  { sku: 'SKU-MSE-030', name: 'Ergonomic wireless mouse', category: 'computing', price: 34.5, final_sale: false },
  { sku: 'SKU-WCH-220', name: 'Fitness smartwatch', category: 'wearables', price: 229.0, final_sale: false },
  { sku: 'SKU-VAC-390', name: 'Robot vacuum cleaner', category: 'home', price: 389.0, final_sale: false },
  { sku: 'SKU-KTL-045', name: 'Electric kettle', category: 'kitchen', price: 45.0, final_sale: false },
  { sku: 'SKU-CFM-260', name: 'Espresso machine', category: 'kitchen', price: 259.0, final_sale: false },
  { sku: 'SKU-AIR-150', name: 'Air purifier', category: 'home', price: 149.95, final_sale: false },
  { sku: 'SKU-LMP-025', name: 'Smart LED desk lamp (clearance)', category: 'home', price: 24.99, final_sale: true },
  { sku: 'SKU-CAM-120', name: 'Action camera (open box)', category: 'video', price: 119.0, final_sale: true },
];

const customers = [
  ['CUS-000101', 'Maria Lopez', 'maria.lopez@example.com', '+1 555 0101', '60601', 'standard'],
  ['CUS-000102', 'Kenji Watanabe', 'kenji.w@example.com', '+1 555 0102', '94107', 'plus'],
  ['CUS-000103', 'Amara Okafor', 'amara.okafor@example.com', '+1 555 0103', '10001', 'vip'],
  ['CUS-000104', 'Lukas Becker', 'lukas.becker@example.com', '+1 555 0104', '98101', 'standard'],
  ['CUS-000105', 'Priya Raman', 'priya.raman@example.com', '+1 555 0105', '30301', 'plus'],
  ['CUS-000106', 'Tom Fischer', 'tom.fischer@example.com', '+1 555 0106', '73301', 'standard'],
] as const;

const created = '2024-06-01T09:00:00Z';

export const retailSeed: Record<string, Record<string, unknown>[]> = {
  customers: customers.map(([customer_id, full_name, email, phone, postal_code, tier]) => ({
    customer_id,
    full_name,
    email,
    phone,
    postal_code,
    tier,
    fraud_hold: customer_id === 'CUS-000106',
    fraud_case_ref: customer_id === 'CUS-000106' ? 'FRC-2024-0611' : null,
    created_at: created,
  })),
  products: CATALOGUE.map((p) => ({ ...p })),
  inventory: CATALOGUE.map((p, i) => ({
    sku: p.sku,
    on_hand: i % 5 === 4 ? 0 : 20 + i,
    restock_date: i % 5 === 4 ? '2026-06-15' : null,
  })),
  orders: [
    {
      order_id: 'ORD-000501',
      customer_id: 'CUS-000101',
      status: 'delivered',
      placed_at: '2025-11-02T10:00:00Z',
      delivered_at: '2025-11-06T15:00:00Z',
      shipping_address: '12 Lake St, Chicago, IL 60601',
      shipping_speed: 'standard',
      shipping_fee: 0,
      total: 199.0,
      cancel_reason: null,
      replacement_for: null,
    },
    {
      order_id: 'ORD-000502',
      customer_id: 'CUS-000102',
      status: 'shipped',
      placed_at: '2025-12-20T18:30:00Z',
      delivered_at: null,
      shipping_address: '400 Market St, San Francisco, CA 94107',
      shipping_speed: 'expedited',
      shipping_fee: 15.0,
      total: 334.0,
      cancel_reason: null,
      replacement_for: null,
    },
    {
      order_id: 'ORD-000503',
      customer_id: 'CUS-000103',
      status: 'processing',
      placed_at: '2026-01-05T08:15:00Z',
      delivered_at: null,
      shipping_address: '5 Hudson Yards, New York, NY 10001',
      shipping_speed: 'expedited',
      shipping_fee: 0,
      total: 1149.0,
      cancel_reason: null,
      replacement_for: null,
    },
  ],
  order_items: [
    {
      item_id: 'ORD-000501-1',
      order_id: 'ORD-000501',
      sku: 'SKU-HDP-200',
      quantity: 1,
      unit_price: 199.0,
      status: 'ordered',
    },
    {
      item_id: 'ORD-000502-1',
      order_id: 'ORD-000502',
      sku: 'SKU-MON-270',
      quantity: 1,
      unit_price: 319.0,
      status: 'ordered',
    },
    {
      item_id: 'ORD-000503-1',
      order_id: 'ORD-000503',
      sku: 'SKU-LAP-140',
      quantity: 1,
      unit_price: 1149.0,
      status: 'ordered',
    },
  ],
  payments: [
    { payment_id: 'PAY-000501', order_id: 'ORD-000501', method: 'card', amount: 199.0, status: 'captured' },
    { payment_id: 'PAY-000502', order_id: 'ORD-000502', method: 'paypal', amount: 334.0, status: 'captured' },
    { payment_id: 'PAY-000503', order_id: 'ORD-000503', method: 'card', amount: 1149.0, status: 'authorized' },
  ],
  shipments: [
    {
      shipment_id: 'SHP-000501',
      order_id: 'ORD-000501',
      carrier: 'UPS',
      tracking_number: '1Z000501',
      status: 'delivered',
      estimated_delivery: '2025-11-06T18:00:00Z',
    },
    {
      shipment_id: 'SHP-000502',
      order_id: 'ORD-000502',
      carrier: 'FedEx',
      tracking_number: '7700000502',
      status: 'in_transit',
      estimated_delivery: '2025-12-24T18:00:00Z',
    },
  ],
  returns: [],
  refunds: [],
  store_credits: [],
  tickets: [
    {
      ticket_id: 'TCK-000001',
      customer_id: 'CUS-000101',
      order_id: 'ORD-000501',
      category: 'delivery',
      priority: 'normal',
      status: 'resolved',
      assigned_team: null,
      subject: 'Where is my order',
      notes: 'Imported from the previous helpdesk.',
      created_at: '2025-11-05T09:00:00Z',
      updated_at: '2025-11-06T16:00:00Z',
    },
    {
      ticket_id: 'TCK-000002',
      customer_id: 'CUS-000106',
      order_id: null,
      category: 'account',
      priority: 'normal',
      status: 'on_hold',
      assigned_team: 'fraud',
      subject: 'Chargeback review',
      notes: 'Imported from the previous helpdesk.',
      created_at: '2025-10-01T09:00:00Z',
      updated_at: '2025-10-01T09:00:00Z',
    },
  ],
  audit_log: [],
};

export const retailSequences = {
  ticket: { prefix: 'TCK-', start: 1000 },
  order: { prefix: 'ORD-R', start: 1000 },
  refund: { prefix: 'RF-', start: 1000 },
  return: { prefix: 'RMA-', start: 1000 },
  credit: { prefix: 'SC-', start: 1000 },
};

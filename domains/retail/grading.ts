import { auditGrading, type TableGrading, ticketGrading } from 'finalstate/domain';

/** Text the customer dictates: graded regardless of case, spacing and surrounding blanks. */
const typedText = ['trim', 'collapse_whitespace', 'casefold'] as const;

const keyed = (...primaryKey: string[]): TableGrading => ({ primaryKey, ignoreColumns: [], canonicalize: {} });

export const retailGrading: Record<string, TableGrading> = {
  customers: {
    primaryKey: ['customer_id'],
    ignoreColumns: [],
    canonicalize: { email: ['trim', 'casefold'], phone: ['trim', 'collapse_whitespace'] },
  },
  products: keyed('sku'),
  inventory: keyed('sku'),
  orders: { primaryKey: ['order_id'], ignoreColumns: [], canonicalize: { shipping_address: [...typedText] } },
  order_items: keyed('item_id'),
  payments: keyed('payment_id'),
  shipments: keyed('shipment_id'),
  returns: {
    primaryKey: ['rma_id'],
    ignoreColumns: [],
    canonicalize: { restocking_fee: [{ round: 2 }], refund_amount: [{ round: 2 }] },
  },
  refunds: { primaryKey: ['refund_id'], ignoreColumns: ['note'], canonicalize: { amount: [{ round: 2 }] } },
  store_credits: { primaryKey: ['credit_id'], ignoreColumns: [], canonicalize: { amount: [{ round: 2 }] } },
  tickets: ticketGrading,
  audit_log: auditGrading,
};

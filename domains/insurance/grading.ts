import { auditGrading, ticketGrading, type TableGrading } from 'finalstate/domain';

const keyed = (...primaryKey: string[]): TableGrading => ({ primaryKey, ignoreColumns: [], canonicalize: {} });
const money = [{ round: 2 }] as const;

export const insuranceGrading: Record<string, TableGrading> = {
  policyholders: {
    primaryKey: ['policyholder_id'],
    ignoreColumns: [],
    canonicalize: { email: ['trim', 'casefold'], phone: ['trim', 'collapse_whitespace'] },
  },
  policies: { primaryKey: ['policy_id'], ignoreColumns: [], canonicalize: { premium_monthly: [...money] } },
  vehicles: keyed('vehicle_id'),
  drivers: {
    primaryKey: ['driver_id'],
    ignoreColumns: [],
    canonicalize: { full_name: ['trim', 'collapse_whitespace', 'casefold'], license_number: ['trim', 'casefold'] },
  },
  coverages: keyed('coverage_id'),
  adjusters: keyed('adjuster_id'),
  repair_shops: keyed('shop_id'),
  claims: {
    primaryKey: ['claim_id'],
    ignoreColumns: [],
    canonicalize: { estimate_amount: [...money], approved_amount: [...money] },
  },
  claim_notes: { primaryKey: ['note_id'], ignoreColumns: ['body'], canonicalize: {} },
  payments: { primaryKey: ['payment_id'], ignoreColumns: [], canonicalize: { amount: [...money] } },
  tickets: ticketGrading,
  audit_log: auditGrading,
};

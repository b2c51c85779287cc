import { auditGrading, ticketGrading, type TableGrading } from 'finalstate/domain';

const keyed = (...primaryKey: string[]): TableGrading => ({ primaryKey, ignoreColumns: [], canonicalize: {} });
const money = [{ round: 2 }] as const;
const days = [{ round: 1 }] as const;

export const consultingGrading: Record<string, TableGrading> = {
  employees: {
    primaryKey: ['employee_id'],
    ignoreColumns: [],
    canonicalize: { salary: [...money], home_address: ['trim', 'collapse_whitespace', 'casefold'] },
  },
  engagements: keyed('engagement_id'),
  engagement_members: keyed('engagement_id', 'employee_id'),
  timesheets: { primaryKey: ['timesheet_id'], ignoreColumns: [], canonicalize: { hours: [...days] } },
  leave_balances: {
    primaryKey: ['employee_id', 'leave_type'],
    ignoreColumns: [],
    canonicalize: { balance_days: [...days] },
  },
  manager_approvals: keyed('approval_id'),
  leave_requests: { primaryKey: ['request_id'], ignoreColumns: ['reason'], canonicalize: { days: [...days] } },
  equipment: keyed('asset_id'),
  expense_claims: { primaryKey: ['claim_id'], ignoreColumns: [], canonicalize: { amount: [...money] } },
  access_grants: keyed('grant_id'),
  tickets: ticketGrading,
  audit_log: auditGrading,
};

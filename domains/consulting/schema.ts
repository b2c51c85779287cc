import { auditTableSql, ticketTableSql, type TicketSystem } from 'finalstate/domain';

/** Tickets belong to an employee and may concern one piece of equipment (the faulty device). */
export const consultingTickets: TicketSystem = {
  partyTable: 'employees',
  partyKey: 'employee_id',
  partyLabel: 'employee',
  refTable: 'equipment',
  refKey: 'asset_id',
  refLabel: 'asset',
  categories: ['leave', 'expense', 'access', 'equipment', 'timesheet', 'hr_records', 'general'],
  teams: ['it_security', 'hr_operations', 'finance'],
};

export const GRADES = ['analyst', 'consultant', 'manager', 'partner'] as const;
export const LEAVE_TYPES = ['annual', 'sick'] as const;
export const EXPENSE_CATEGORIES = ['travel', 'meals', 'lodging', 'software', 'training'] as const;
export const EXPENSE_REJECTIONS = ['missing_receipt', 'not_business'] as const;
export const SYSTEMS = ['vpn', 'crm', 'code_repo', 'hr_portal', 'finance_erp'] as const;
export const ACCESS_ROLES = ['read', 'write', 'admin'] as const;
export const EQUIPMENT_KINDS = ['laptop', 'monitor', 'phone', 'headset'] as const;
export const APPROVAL_KINDS = ['leave_exception', 'expense', 'access'] as const;
export const TIMESHEET_REJECTIONS = ['over_hours_limit', 'not_engagement_member'] as const;

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

export const consultingSchemaSql = `
CREATE TABLE employees (
  employee_id    text PRIMARY KEY,
  full_name      text NOT NULL,
  email          text NOT NULL UNIQUE,
  grade          text NOT NULL CHECK (grade IN (${list(GRADES)})),
  department     text NOT NULL,
  manager_id     text REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  hire_date      date NOT NULL,
  date_of_birth  date NOT NULL,
  salary         numeric(10, 2) NOT NULL,
  home_address   text NOT NULL,
  status         text NOT NULL CHECK (status IN ('active', 'on_leave', 'terminated'))
);

CREATE TABLE engagements (
  engagement_id  text PRIMARY KEY,
  client_name    text NOT NULL,
  manager_id     text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  status         text NOT NULL CHECK (status IN ('active', 'closed'))
);

CREATE TABLE engagement_members (
  engagement_id  text NOT NULL REFERENCES engagements(engagement_id) DEFERRABLE INITIALLY DEFERRED,
  employee_id    text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  PRIMARY KEY (engagement_id, employee_id)
);

CREATE TABLE timesheets (
  timesheet_id     text PRIMARY KEY,
  employee_id      text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  engagement_id    text NOT NULL REFERENCES engagements(engagement_id) DEFERRABLE INITIALLY DEFERRED,
  week_start       date NOT NULL,
  hours            numeric(5, 1) NOT NULL CHECK (hours >= 0),
  status           text NOT NULL CHECK (status IN ('draft', 'submitted', 'approved', 'rejected')),
  decided_by       text REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  rejection_reason text CHECK (rejection_reason IN (${list(TIMESHEET_REJECTIONS)}))
);

CREATE TABLE leave_balances (
  employee_id      text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  leave_type       text NOT NULL CHECK (leave_type IN (${list(LEAVE_TYPES)})),
  balance_days     numeric(5, 1) NOT NULL,
  accrued_through  date NOT NULL,
  PRIMARY KEY (employee_id, leave_type)
);

CREATE TABLE manager_approvals (
  approval_id  text PRIMARY KEY,
  employee_id  text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  approver_id  text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  kind         text NOT NULL CHECK (kind IN (${list(APPROVAL_KINDS)})),
  max_days     numeric(5, 1),
  max_amount   numeric(10, 2),
  system       text CHECK (system IN (${list(SYSTEMS)})),
  role         text CHECK (role IN (${list(ACCESS_ROLES)})),
  recorded_at  timestamptz NOT NULL
);

CREATE TABLE leave_requests (
  request_id       text PRIMARY KEY,
  employee_id      text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  leave_type       text NOT NULL CHECK (leave_type IN (${list(LEAVE_TYPES)})),
  start_date       date NOT NULL,
  days             numeric(5, 1) NOT NULL CHECK (days > 0),
  reason           text NOT NULL DEFAULT '',
  status           text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled')),
  approval_id      text REFERENCES manager_approvals(approval_id) DEFERRABLE INITIALLY DEFERRED,
  decided_by       text REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  deducted         boolean NOT NULL DEFAULT false,
  created_at       timestamptz NOT NULL
);

CREATE TABLE equipment (
  asset_id      text PRIMARY KEY,
  kind          text NOT NULL CHECK (kind IN (${list(EQUIPMENT_KINDS)})),
  model         text NOT NULL,
  employee_id   text REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  status        text NOT NULL CHECK (status IN ('in_stock', 'assigned', 'repair', 'retired')),
  purchased_on  date NOT NULL
);

CREATE TABLE expense_claims (
  claim_id          text PRIMARY KEY,
  employee_id       text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  engagement_id     text REFERENCES engagements(engagement_id) DEFERRABLE INITIALLY DEFERRED,
  category          text NOT NULL CHECK (category IN (${list(EXPENSE_CATEGORIES)})),
  amount            numeric(10, 2) NOT NULL CHECK (amount > 0),
  receipt_attached  boolean NOT NULL,
  status            text NOT NULL CHECK (status IN ('submitted', 'approved', 'pending_manager', 'rejected', 'paid')),
  approval_id       text REFERENCES manager_approvals(approval_id) DEFERRABLE INITIALLY DEFERRED,
  rejection_reason  text CHECK (rejection_reason IN (${list(EXPENSE_REJECTIONS)})),
  routed_to         text REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  created_at        timestamptz NOT NULL
);

CREATE TABLE access_grants (
  grant_id     text PRIMARY KEY,
  employee_id  text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  system       text NOT NULL CHECK (system IN (${list(SYSTEMS)})),
  role         text NOT NULL CHECK (role IN (${list(ACCESS_ROLES)})),
  status       text NOT NULL CHECK (status IN ('active', 'revoked')),
  approval_id  text REFERENCES manager_approvals(approval_id) DEFERRABLE INITIALLY DEFERRED,
  granted_at   timestamptz NOT NULL
);
${ticketTableSql(consultingTickets)}${auditTableSql}`;

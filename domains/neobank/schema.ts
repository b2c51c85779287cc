import { auditTableSql, ticketTableSql, type TicketSystem } from 'finalstate/domain';

/** Tickets belong to the employee who asks and may concern one of the bank's devices. */
export const neobankTickets: TicketSystem = {
  partyTable: 'employees',
  partyKey: 'employee_id',
  partyLabel: 'employee',
  refTable: 'devices',
  refKey: 'device_id',
  refLabel: 'device',
  categories: ['access', 'device', 'software', 'security', 'account', 'offboarding', 'general'],
  teams: ['security', 'it_operations', 'people_ops'],
};

export const ROLES = [
  'software_engineer',
  'site_reliability',
  'data_analyst',
  'support_agent',
  'finance_analyst',
  'hr_partner',
] as const;
/** Access levels, least to most privileged. */
export const ACCESS_LEVELS = ['read', 'write', 'admin'] as const;
export const SENSITIVITIES = ['standard', 'confidential', 'production'] as const;
export const APPROVER_ROLES = ['manager', 'data_owner', 'security_lead'] as const;
export const INCIDENT_KINDS = ['phishing', 'lost_device', 'leaked_credential', 'malware', 'hardware_fault'] as const;
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const DEVICE_KINDS = ['laptop', 'phone', 'security_key'] as const;

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

export const neobankSchemaSql = `
CREATE TABLE departments (
  department_id  text PRIMARY KEY,
  name           text NOT NULL
);

CREATE TABLE employees (
  employee_id      text PRIMARY KEY,
  full_name        text NOT NULL,
  email            text NOT NULL UNIQUE,
  employee_number  text NOT NULL UNIQUE,
  department_id    text NOT NULL REFERENCES departments(department_id) DEFERRABLE INITIALLY DEFERRED,
  role             text NOT NULL CHECK (role IN (${list(ROLES)}, 'manager', 'security_lead', 'data_owner')),
  manager_id       text REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  status           text NOT NULL CHECK (status IN ('active', 'leaving', 'left')),
  mfa_enrolled     boolean NOT NULL DEFAULT true,
  mfa_reset_at     timestamptz
);

CREATE TABLE systems (
  system_id      text PRIMARY KEY,
  name           text NOT NULL,
  sensitivity    text NOT NULL CHECK (sensitivity IN (${list(SENSITIVITIES)})),
  data_owner_id  text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE role_entitlements (
  role       text NOT NULL,
  system_id  text NOT NULL REFERENCES systems(system_id) DEFERRABLE INITIALLY DEFERRED,
  max_level  text NOT NULL CHECK (max_level IN (${list(ACCESS_LEVELS)})),
  PRIMARY KEY (role, system_id)
);

CREATE TABLE devices (
  device_id    text PRIMARY KEY,
  employee_id  text REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  kind         text NOT NULL CHECK (kind IN (${list(DEVICE_KINDS)})),
  model        text NOT NULL,
  asset_tag    text NOT NULL UNIQUE,
  encrypted    boolean NOT NULL,
  status       text NOT NULL CHECK (status IN ('active', 'lost', 'returned', 'retired')),
  wiped        boolean NOT NULL DEFAULT false,
  locked       boolean NOT NULL DEFAULT false
);

CREATE TABLE software_products (
  product_id           text PRIMARY KEY,
  name                 text NOT NULL,
  seats_total          integer NOT NULL CHECK (seats_total >= 0),
  monthly_cost         numeric(10, 2) NOT NULL
);

CREATE TABLE software_entitlements (
  product_id     text NOT NULL REFERENCES software_products(product_id) DEFERRABLE INITIALLY DEFERRED,
  department_id  text NOT NULL REFERENCES departments(department_id) DEFERRABLE INITIALLY DEFERRED,
  PRIMARY KEY (product_id, department_id)
);

CREATE TABLE software_licences (
  licence_id   text PRIMARY KEY,
  product_id   text NOT NULL REFERENCES software_products(product_id) DEFERRABLE INITIALLY DEFERRED,
  employee_id  text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  status       text NOT NULL CHECK (status IN ('active', 'revoked')),
  assigned_at  timestamptz NOT NULL,
  revoked_at   timestamptz
);

CREATE TABLE access_requests (
  request_id   text PRIMARY KEY,
  employee_id  text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  system_id    text NOT NULL REFERENCES systems(system_id) DEFERRABLE INITIALLY DEFERRED,
  level        text NOT NULL CHECK (level IN (${list(ACCESS_LEVELS)})),
  status       text NOT NULL CHECK (status IN ('pending', 'fulfilled', 'rejected')),
  created_at   timestamptz NOT NULL
);

CREATE TABLE change_approvals (
  approval_id    text PRIMARY KEY,
  request_id     text NOT NULL REFERENCES access_requests(request_id) DEFERRABLE INITIALLY DEFERRED,
  approver_id    text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  approver_role  text NOT NULL CHECK (approver_role IN (${list(APPROVER_ROLES)})),
  decision       text NOT NULL CHECK (decision IN ('requested', 'approved', 'rejected')),
  decided_at     timestamptz,
  UNIQUE (request_id, approver_role)
);

CREATE TABLE access_grants (
  grant_id     text PRIMARY KEY,
  employee_id  text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  system_id    text NOT NULL REFERENCES systems(system_id) DEFERRABLE INITIALLY DEFERRED,
  level        text NOT NULL CHECK (level IN (${list(ACCESS_LEVELS)})),
  request_id   text REFERENCES access_requests(request_id) DEFERRABLE INITIALLY DEFERRED,
  status       text NOT NULL CHECK (status IN ('active', 'revoked')),
  granted_at   timestamptz NOT NULL,
  revoked_at   timestamptz
);

CREATE TABLE incidents (
  incident_id  text PRIMARY KEY,
  employee_id  text NOT NULL REFERENCES employees(employee_id) DEFERRABLE INITIALLY DEFERRED,
  device_id    text REFERENCES devices(device_id) DEFERRABLE INITIALLY DEFERRED,
  kind         text NOT NULL CHECK (kind IN (${list(INCIDENT_KINDS)})),
  severity     text NOT NULL CHECK (severity IN (${list(SEVERITIES)})),
  status       text NOT NULL CHECK (status IN ('open', 'resolved')),
  summary      text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL
);
${ticketTableSql(neobankTickets)}${auditTableSql}`;

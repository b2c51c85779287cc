import { auditTableSql, ticketTableSql, type TicketSystem } from 'finalstate/domain';

/** Tickets belong to a policyholder and may concern one policy (claims are reached through their policy). */
export const insuranceTickets: TicketSystem = {
  partyTable: 'policyholders',
  partyKey: 'policyholder_id',
  partyLabel: 'policyholder',
  refTable: 'policies',
  refKey: 'policy_id',
  refLabel: 'policy',
  categories: ['claim', 'policy_change', 'cancellation', 'account', 'general'],
  teams: ['claims_manager', 'special_investigations', 'underwriting'],
};

export const CLAIM_KINDS = ['collision', 'comprehensive', 'glass', 'theft'] as const;
export const COVERAGE_KINDS = ['liability', 'collision', 'comprehensive', 'rental', 'roadside'] as const;
export const DENIAL_REASONS = ['excluded_driver', 'no_coverage', 'late_report', 'policy_inactive'] as const;
export const CANCEL_REASONS = ['sold_vehicle', 'switched_insurer', 'customer_request'] as const;
export const VEHICLE_USES = ['personal', 'commute', 'business'] as const;
export const DRIVER_RELATIONS = ['spouse', 'child', 'parent', 'other'] as const;
export const NOTE_KINDS = ['approval', 'denial', 'payment', 'shop', 'general'] as const;

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

export const insuranceSchemaSql = `
CREATE TABLE policyholders (
  policyholder_id text PRIMARY KEY,
  full_name       text NOT NULL,
  email           text NOT NULL UNIQUE,
  phone           text NOT NULL,
  date_of_birth   date NOT NULL,
  city            text NOT NULL,
  tier            text NOT NULL CHECK (tier IN ('standard', 'preferred')),
  created_at      timestamptz NOT NULL
);

CREATE TABLE policies (
  policy_id        text PRIMARY KEY,
  policyholder_id  text NOT NULL REFERENCES policyholders(policyholder_id) DEFERRABLE INITIALLY DEFERRED,
  status           text NOT NULL CHECK (status IN ('active', 'lapsed', 'cancelled')),
  start_date       date NOT NULL,
  end_date         date NOT NULL,
  premium_monthly  numeric(10, 2) NOT NULL CHECK (premium_monthly >= 0),
  cancel_reason    text CHECK (cancel_reason IN (${list(CANCEL_REASONS)})),
  cancelled_at     timestamptz
);

CREATE TABLE vehicles (
  vehicle_id  text PRIMARY KEY,
  policy_id   text NOT NULL REFERENCES policies(policy_id) DEFERRABLE INITIALLY DEFERRED,
  vin         text NOT NULL,
  make        text NOT NULL,
  model       text NOT NULL,
  year        integer NOT NULL,
  usage       text NOT NULL CHECK (usage IN (${list(VEHICLE_USES)}))
);

CREATE TABLE drivers (
  driver_id       text PRIMARY KEY,
  policy_id       text NOT NULL REFERENCES policies(policy_id) DEFERRABLE INITIALLY DEFERRED,
  full_name       text NOT NULL,
  date_of_birth   date NOT NULL,
  license_number  text NOT NULL,
  relation        text NOT NULL CHECK (relation IN ('self', ${list(DRIVER_RELATIONS)})),
  status          text NOT NULL CHECK (status IN ('listed', 'excluded')),
  UNIQUE (policy_id, license_number)
);

CREATE TABLE coverages (
  coverage_id   text PRIMARY KEY,
  policy_id     text NOT NULL REFERENCES policies(policy_id) DEFERRABLE INITIALLY DEFERRED,
  vehicle_id    text NOT NULL REFERENCES vehicles(vehicle_id) DEFERRABLE INITIALLY DEFERRED,
  kind          text NOT NULL CHECK (kind IN (${list(COVERAGE_KINDS)})),
  limit_amount  numeric(10, 2) NOT NULL,
  deductible    numeric(10, 2) NOT NULL DEFAULT 0
);

CREATE TABLE adjusters (
  adjuster_id      text PRIMARY KEY,
  full_name        text NOT NULL,
  authority_limit  numeric(10, 2) NOT NULL
);

CREATE TABLE repair_shops (
  shop_id    text PRIMARY KEY,
  name       text NOT NULL,
  city       text NOT NULL,
  network    boolean NOT NULL
);

CREATE TABLE claims (
  claim_id         text PRIMARY KEY,
  policy_id        text NOT NULL REFERENCES policies(policy_id) DEFERRABLE INITIALLY DEFERRED,
  vehicle_id       text NOT NULL REFERENCES vehicles(vehicle_id) DEFERRABLE INITIALLY DEFERRED,
  driver_id        text REFERENCES drivers(driver_id) DEFERRABLE INITIALLY DEFERRED,
  kind             text NOT NULL CHECK (kind IN (${list(CLAIM_KINDS)})),
  incident_date    date NOT NULL,
  reported_at      timestamptz NOT NULL,
  status           text NOT NULL CHECK (status IN ('open', 'under_review', 'approved', 'denied', 'paid')),
  estimate_amount  numeric(10, 2),
  approved_amount  numeric(10, 2),
  denial_reason    text CHECK (denial_reason IN (${list(DENIAL_REASONS)})),
  adjuster_id      text REFERENCES adjusters(adjuster_id) DEFERRABLE INITIALLY DEFERRED,
  shop_id          text REFERENCES repair_shops(shop_id) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE claim_notes (
  note_id     text PRIMARY KEY,
  claim_id    text NOT NULL REFERENCES claims(claim_id) DEFERRABLE INITIALLY DEFERRED,
  kind        text NOT NULL CHECK (kind IN (${list(NOTE_KINDS)})),
  body        text NOT NULL,
  created_at  timestamptz NOT NULL
);

CREATE TABLE payments (
  payment_id  text PRIMARY KEY,
  claim_id    text NOT NULL REFERENCES claims(claim_id) DEFERRABLE INITIALLY DEFERRED,
  payee       text NOT NULL CHECK (payee IN ('policyholder', 'repair_shop')),
  shop_id     text REFERENCES repair_shops(shop_id) DEFERRABLE INITIALLY DEFERRED,
  amount      numeric(10, 2) NOT NULL CHECK (amount > 0),
  created_at  timestamptz NOT NULL
);
${ticketTableSql(insuranceTickets)}${auditTableSql}`;

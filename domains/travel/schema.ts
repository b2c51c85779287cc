import { auditTableSql, type TicketSystem, ticketTableSql } from 'finalstate/domain';

export const REFUND_REASONS = [
  'hotel_cancellation',
  'room_downgrade',
  'flight_cancellation',
  'airline_disruption',
  'goodwill',
] as const;
export const APPROVAL_TYPES = ['room_change', 'cancellation'] as const;

export const travelTickets: TicketSystem = {
  partyTable: 'travelers',
  partyKey: 'traveler_id',
  partyLabel: 'traveller',
  refTable: 'bookings',
  refKey: 'booking_id',
  refLabel: 'booking',
  categories: ['booking_change', 'cancellation', 'flight_disruption', 'seat', 'account', 'general'],
  teams: ['manager_approval', 'supervisor', 'duty_of_care'],
};

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

/** The back office of a corporate travel agency: client companies, travellers, inventory, bookings, money, approvals, tickets, audit. */
export const travelSchemaSql = `
CREATE TABLE companies (
  company_id                text PRIMARY KEY,
  name                      text NOT NULL,
  changes_require_approval  boolean NOT NULL
);

CREATE TABLE travelers (
  traveler_id      text PRIMARY KEY,
  company_id       text REFERENCES companies(company_id) DEFERRABLE INITIALLY DEFERRED,
  full_name        text NOT NULL,
  email            text NOT NULL UNIQUE,
  phone            text NOT NULL,
  date_of_birth    date NOT NULL,
  passport_number  text NOT NULL,
  loyalty_tier     text NOT NULL CHECK (loyalty_tier IN ('none', 'silver', 'gold', 'platinum')),
  manager_email    text,
  created_at       timestamptz NOT NULL
);

CREATE TABLE hotels (
  hotel_id           text PRIMARY KEY,
  name               text NOT NULL,
  city               text NOT NULL,
  free_cancel_hours  integer NOT NULL CHECK (free_cancel_hours >= 0)
);

CREATE TABLE room_types (
  hotel_id      text NOT NULL REFERENCES hotels(hotel_id) DEFERRABLE INITIALLY DEFERRED,
  room_code     text NOT NULL,
  description   text NOT NULL,
  nightly_rate  numeric(10,2) NOT NULL CHECK (nightly_rate > 0),
  PRIMARY KEY (hotel_id, room_code)
);

CREATE TABLE flights (
  flight_id      text PRIMARY KEY,
  flight_number  text NOT NULL,
  origin         text NOT NULL,
  destination    text NOT NULL,
  departs_at     timestamptz NOT NULL,
  arrives_at     timestamptz NOT NULL,
  status         text NOT NULL CHECK (status IN ('scheduled', 'delayed', 'cancelled')),
  delay_minutes  integer NOT NULL DEFAULT 0
);

CREATE TABLE bookings (
  booking_id   text PRIMARY KEY,
  traveler_id  text NOT NULL REFERENCES travelers(traveler_id) DEFERRABLE INITIALLY DEFERRED,
  company_id   text REFERENCES companies(company_id) DEFERRABLE INITIALLY DEFERRED,
  status       text NOT NULL CHECK (status IN ('confirmed', 'partially_cancelled', 'cancelled')),
  total        numeric(10,2) NOT NULL CHECK (total >= 0),
  created_at   timestamptz NOT NULL
);

CREATE TABLE hotel_stays (
  stay_id           text PRIMARY KEY,
  booking_id        text NOT NULL REFERENCES bookings(booking_id) DEFERRABLE INITIALLY DEFERRED,
  hotel_id          text NOT NULL,
  room_code         text NOT NULL,
  check_in          date NOT NULL,
  check_out         date NOT NULL CHECK (check_out > check_in),
  nightly_rate      numeric(10,2) NOT NULL,
  status            text NOT NULL CHECK (status IN ('booked', 'cancelled')),
  cancellation_fee  numeric(10,2) NOT NULL DEFAULT 0,
  FOREIGN KEY (hotel_id, room_code) REFERENCES room_types(hotel_id, room_code) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE flight_segments (
  segment_id  text PRIMARY KEY,
  booking_id  text NOT NULL REFERENCES bookings(booking_id) DEFERRABLE INITIALLY DEFERRED,
  flight_id   text NOT NULL REFERENCES flights(flight_id) DEFERRABLE INITIALLY DEFERRED,
  cabin       text NOT NULL CHECK (cabin IN ('economy', 'premium_economy', 'business')),
  fare_type   text NOT NULL CHECK (fare_type IN ('refundable', 'non_refundable')),
  seat        text,
  price       numeric(10,2) NOT NULL CHECK (price >= 0),
  status      text NOT NULL CHECK (status IN ('ticketed', 'cancelled'))
);

CREATE TABLE payments (
  payment_id       text PRIMARY KEY,
  booking_id       text NOT NULL REFERENCES bookings(booking_id) DEFERRABLE INITIALLY DEFERRED,
  method           text NOT NULL CHECK (method IN ('corporate_card', 'personal_card')),
  amount           numeric(10,2) NOT NULL CHECK (amount >= 0),
  refunded_amount  numeric(10,2) NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0 AND refunded_amount <= amount),
  status           text NOT NULL CHECK (status IN ('captured', 'partially_refunded', 'refunded'))
);

CREATE TABLE refunds (
  refund_id   text PRIMARY KEY,
  booking_id  text NOT NULL REFERENCES bookings(booking_id) DEFERRABLE INITIALLY DEFERRED,
  payment_id  text NOT NULL REFERENCES payments(payment_id) DEFERRABLE INITIALLY DEFERRED,
  amount      numeric(10,2) NOT NULL CHECK (amount > 0),
  reason      text NOT NULL CHECK (reason IN (${list(REFUND_REASONS)})),
  created_at  timestamptz NOT NULL
);

CREATE TABLE travel_credits (
  credit_id    text PRIMARY KEY,
  traveler_id  text NOT NULL REFERENCES travelers(traveler_id) DEFERRABLE INITIALLY DEFERRED,
  booking_id   text REFERENCES bookings(booking_id) DEFERRABLE INITIALLY DEFERRED,
  amount       numeric(10,2) NOT NULL CHECK (amount > 0),
  expires_on   date NOT NULL,
  created_at   timestamptz NOT NULL
);

CREATE TABLE approvals (
  approval_id     text PRIMARY KEY,
  booking_id      text NOT NULL REFERENCES bookings(booking_id) DEFERRABLE INITIALLY DEFERRED,
  request_type    text NOT NULL CHECK (request_type IN (${list(APPROVAL_TYPES)})),
  approver_email  text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  decided_at      timestamptz
);
${ticketTableSql(travelTickets)}${auditTableSql}`;

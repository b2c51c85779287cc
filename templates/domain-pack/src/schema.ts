import { auditTableSql, ticketTableSql, type TicketSystem } from 'finalstate/domain';

/** Tickets belong to a member and may concern one rental (the ticket tools come from finalstate/domain). */
export const tickets: TicketSystem = {
  partyTable: 'members',
  partyKey: 'member_id',
  partyLabel: 'member',
  refTable: 'rentals',
  refKey: 'rental_id',
  refLabel: 'rental',
  categories: ['rental', 'account', 'general'],
  teams: ['fleet_manager'],
};

export const schemaSql = `
CREATE TABLE members (
  member_id  text PRIMARY KEY,
  full_name  text NOT NULL,
  email      text NOT NULL UNIQUE,
  tier       text NOT NULL CHECK (tier IN ('basic', 'gold'))
);

CREATE TABLE rentals (
  rental_id   text PRIMARY KEY,
  member_id   text NOT NULL REFERENCES members(member_id) DEFERRABLE INITIALLY DEFERRED,
  bike        text NOT NULL,
  status      text NOT NULL CHECK (status IN ('active', 'returned')),
  due_at      timestamptz NOT NULL,
  extensions  integer NOT NULL DEFAULT 0
);
${ticketTableSql(tickets)}${auditTableSql}`;

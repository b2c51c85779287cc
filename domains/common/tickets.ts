import { z } from 'zod';
import type { TableGrading } from '../../schemas/domain.js';
import type { ToolContext, ToolDefinition } from '../../environment/domain.js';
import { ToolRejection } from '../../environment/domain.js';
import { writeAudit } from './audit.js';
import { selectJson, selectOne } from './sql.js';
import { defineTool } from './tool.js';

/**
 * The support-ticket system both domains share: a ticket belongs to a customer (retail) or traveller (travel) and
 * may concern one order or booking. Escalation puts the ticket on hold with a team. Updates and escalations are
 * audited, so that repeating one leaves a visible second audit row.
 */
export interface TicketSystem {
  /** Table and key column of the party who opened the ticket, e.g. customers.customer_id. */
  partyTable: string;
  partyKey: string;
  partyLabel: string;
  /** Table and key column of the record the ticket is about, e.g. orders.order_id. */
  refTable: string;
  refKey: string;
  refLabel: string;
  categories: readonly [string, ...string[]];
  teams: readonly [string, ...string[]];
}

export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const TICKET_STATUSES = ['open', 'pending', 'hold', 'solved'] as const;
/** Status names the previous helpdesk used; still present in imported tickets and graded as their modern names. */
const LEGACY_STATUSES: Record<string, string> = { on_hold: 'hold', resolved: 'solved', closed: 'solved' };

const quoteList = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

export function ticketTableSql(system: TicketSystem): string {
  const statuses = [...TICKET_STATUSES, ...Object.keys(LEGACY_STATUSES)];
  return `
CREATE TABLE tickets (
  ticket_id      text PRIMARY KEY,
  ${system.partyKey} text NOT NULL REFERENCES ${system.partyTable}(${system.partyKey}) DEFERRABLE INITIALLY DEFERRED,
  ${system.refKey} text REFERENCES ${system.refTable}(${system.refKey}) DEFERRABLE INITIALLY DEFERRED,
  category       text NOT NULL CHECK (category IN (${quoteList(system.categories)})),
  priority       text NOT NULL CHECK (priority IN (${quoteList(TICKET_PRIORITIES)})),
  status         text NOT NULL CHECK (status IN (${quoteList(statuses)})),
  assigned_team  text CHECK (assigned_team IN (${quoteList(system.teams)})),
  subject        text NOT NULL,
  notes          text NOT NULL DEFAULT '',
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);
`;
}

/** One new ticket per conversation is keyed by its sequence id; subject, notes and timestamps are free. */
export const ticketGrading: TableGrading = {
  primaryKey: ['ticket_id'],
  ignoreColumns: ['subject', 'notes', 'created_at', 'updated_at'],
  canonicalize: { status: [{ enum: LEGACY_STATUSES }] },
};

async function requireTicket(ctx: ToolContext, ticketId: string) {
  return selectOne(
    ctx.db,
    'SELECT * FROM tickets WHERE ticket_id = $1',
    [ticketId],
    `No ticket ${ticketId}. Use list_tickets to find the customer's tickets.`,
  );
}

export function ticketTools(system: TicketSystem): ToolDefinition[] {
  const { partyKey, partyTable, refKey, refTable } = system;
  return [
    defineTool({
      name: 'list_tickets',
      description: `List every support ticket of a ${system.partyLabel}, newest first (id, ${system.refLabel}, category, priority, status, team). Check it before creating a ticket: a follow-up on a ${system.refLabel} that already has an open, pending or hold ticket reuses that ticket.`,
      input: { [partyKey]: z.string().describe(`The ${system.partyLabel} id.`) },
      readOnly: true,
      async handler(ctx, args) {
        const party = String(args[partyKey]);
        await selectOne(
          ctx.db,
          `SELECT 1 AS found FROM ${partyTable} WHERE ${partyKey} = $1`,
          [party],
          `No ${system.partyLabel} ${party}.`,
        );
        const tickets = await selectJson(
          ctx.db,
          `SELECT * FROM tickets WHERE ${partyKey} = $1 ORDER BY created_at DESC, ticket_id DESC`,
          [party],
        );
        return { tickets };
      },
    }),
    defineTool({
      name: 'create_ticket',
      description: `Open a new support ticket (status open) for a ${system.partyLabel}, optionally about one ${system.refLabel}. Returns the new ticket_id. Set the category and priority the policy prescribes; the subject is a short free-text summary.`,
      input: {
        [partyKey]: z.string().describe(`The ${system.partyLabel} id.`),
        [refKey]: z.string().optional().describe(`The ${system.refLabel} the request is about, if any.`),
        category: z.enum(system.categories).describe('What the request is about.'),
        priority: z.enum(TICKET_PRIORITIES).describe('Priority required by the policy (depends on the customer tier).'),
        subject: z.string().min(1).optional().describe('A one-line summary of the request (defaults to the category).'),
      },
      readOnly: false,
      async handler(ctx, args) {
        const party = String(args[partyKey]);
        const ref = args[refKey] === undefined ? null : String(args[refKey]);
        await selectOne(
          ctx.db,
          `SELECT 1 AS found FROM ${partyTable} WHERE ${partyKey} = $1`,
          [party],
          `No ${system.partyLabel} ${party}.`,
        );
        if (ref !== null) {
          await selectOne(
            ctx.db,
            `SELECT 1 AS found FROM ${refTable} WHERE ${refKey} = $1 AND ${partyKey} = $2`,
            [ref, party],
            `No ${system.refLabel} ${ref} belongs to ${system.partyLabel} ${party}.`,
          );
        }
        const ticketId = await ctx.nextId('ticket');
        await ctx.db.query(
          `INSERT INTO tickets (ticket_id, ${partyKey}, ${refKey}, category, priority, status, subject, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'open', $6, $7, $7)`,
          [ticketId, party, ref, args.category, args.priority, args.subject ?? `${args.category} request`, ctx.now],
        );
        return { ticket_id: ticketId, status: 'open' };
      },
    }),
    defineTool({
      name: 'update_ticket',
      description:
        "Change a ticket's status and/or priority and append an internal note. Use it to close the conversation: solved when the request is resolved or refused, hold when waiting on another team or on a returned item, pending when waiting for the customer.",
      input: {
        ticket_id: z.string().describe('The ticket id, e.g. TCK-1000.'),
        status: z.enum(TICKET_STATUSES).optional().describe('New status.'),
        priority: z
          .enum(TICKET_PRIORITIES)
          .optional()
          .describe('New priority, when the policy requires a different one.'),
        note: z.string().optional().describe('Internal note appended to the ticket (never shown to the customer).'),
      },
      readOnly: false,
      async handler(ctx, args) {
        if (args.status === undefined && args.priority === undefined && args.note === undefined) {
          throw new ToolRejection('Nothing to update: give a status, a priority or a note.');
        }
        const ticket = await requireTicket(ctx, args.ticket_id);
        await ctx.db.query(
          `UPDATE tickets SET status = COALESCE($2, status), priority = COALESCE($3, priority),
             notes = CASE WHEN $4::text IS NULL THEN notes ELSE concat_ws(E'\\n', NULLIF(notes, ''), $4::text) END, updated_at = $5
           WHERE ticket_id = $1`,
          [args.ticket_id, args.status ?? null, args.priority ?? null, args.note ?? null, ctx.now],
        );
        const changes = [args.status && `status=${args.status}`, args.priority && `priority=${args.priority}`]
          .filter(Boolean)
          .join(',');
        await writeAudit(ctx, {
          entityType: 'ticket',
          entityId: args.ticket_id,
          action: changes ? `update:${changes}` : 'note',
          detail: args.note ?? '',
        });
        return {
          ticket_id: args.ticket_id,
          status: args.status ?? ticket.status,
          priority: args.priority ?? ticket.priority,
        };
      },
    }),
    defineTool({
      name: 'escalate_ticket',
      description:
        "Hand a ticket to a specialist team: sets the team, puts the ticket on hold and records the escalation in the audit log. Use it when the policy says a request needs another team's approval or review; do not perform the requested change yourself.",
      input: {
        ticket_id: z.string().describe('The ticket id.'),
        team: z.enum(system.teams).describe('The team that must handle the request.'),
        reason: z.string().min(1).optional().describe('Why the ticket is escalated (internal note).'),
      },
      readOnly: false,
      async handler(ctx, args) {
        const ticket = await requireTicket(ctx, args.ticket_id);
        if (ticket.status === 'solved')
          throw new ToolRejection(
            `Ticket ${args.ticket_id} is solved; reopen it with update_ticket before escalating.`,
          );
        await ctx.db.query(
          `UPDATE tickets SET status = 'hold', assigned_team = $2, notes = concat_ws(E'\\n', NULLIF(notes, ''), $3::text), updated_at = $4 WHERE ticket_id = $1`,
          [args.ticket_id, args.team, `Escalated to ${args.team}: ${args.reason ?? 'per policy'}`, ctx.now],
        );
        await writeAudit(ctx, {
          entityType: 'ticket',
          entityId: args.ticket_id,
          action: `escalate:${args.team}`,
          detail: args.reason ?? '',
        });
        return { ticket_id: args.ticket_id, status: 'hold', assigned_team: args.team };
      },
    }),
  ];
}

import {
  addDays,
  defineTool,
  hoursBetween,
  selectOne,
  ticketTools,
  ToolRejection,
  writeAudit,
  z,
  type ToolDefinition,
} from 'finalstate/domain';
import { tickets } from './schema.js';

const rentalId = z.string().describe('The rental id, e.g. RNT-104233.');

export const findMemberByEmail = defineTool({
  name: 'find_member_by_email',
  description:
    'Find a member by e-mail address. Returns the member id, name and tier. Use it first to identify the customer.',
  input: { email: z.string().describe('The e-mail address the member gives.') },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      'SELECT member_id, full_name, tier FROM members WHERE lower(email) = lower(trim($1))',
      [args.email],
      `No member with e-mail ${args.email}.`,
    );
  },
});

export const getRental = defineTool({
  name: 'get_rental',
  description:
    'Get a rental: bike, status, due_at, hours_until_due (negative when overdue) and how many times it was extended.',
  input: { rental_id: rentalId },
  readOnly: true,
  async handler(ctx, args) {
    const rental = await selectOne(
      ctx.db,
      'SELECT * FROM rentals WHERE rental_id = $1',
      [args.rental_id],
      `No rental ${args.rental_id}.`,
    );
    // The agent never sees the clock: report the duration it needs, computed from the episode clock ctx.now.
    return { ...rental, hours_until_due: hoursBetween(ctx.now, new Date(String(rental.due_at))) };
  },
});

export const extendRental = defineTool({
  name: 'extend_rental',
  description: 'Extend an active rental by 1 to 3 days. Returns the new due date.',
  input: { rental_id: rentalId, days: z.number().int().min(1).max(3).describe('Days to add.') },
  readOnly: false,
  async handler(ctx, args) {
    const rental = await selectOne(
      ctx.db,
      'SELECT status, due_at FROM rentals WHERE rental_id = $1',
      [args.rental_id],
      `No rental ${args.rental_id}.`,
    );
    // A system constraint (a returned bike cannot be extended) is the tool's to reject; policy rules are the agent's.
    if (rental.status !== 'active')
      throw new ToolRejection(
        `Rental ${args.rental_id} is ${String(rental.status)}; only active rentals can be extended.`,
      );
    const due = addDays(new Date(String(rental.due_at)), args.days);
    await ctx.db.query('UPDATE rentals SET due_at = $2, extensions = extensions + 1 WHERE rental_id = $1', [
      args.rental_id,
      due,
    ]);
    await writeAudit(ctx, { entityType: 'rental', entityId: args.rental_id, action: 'extend' });
    return { rental_id: args.rental_id, due_at: due.toISOString() };
  },
});

export const tools: ToolDefinition[] = [findMemberByEmail, getRental, extendRental, ...ticketTools(tickets)];

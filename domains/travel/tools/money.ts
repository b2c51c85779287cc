import {
  addDays,
  defineTool,
  fromCents,
  isoDate,
  selectOne,
  toCents,
  ToolRejection,
  writeAudit,
  z,
} from 'finalstate/domain';
import { REFUND_REASONS } from '../schema.js';
import { bookingId, requireBooking } from './bookings.js';

const amount = z.number().positive().describe('Amount in dollars, whole cents (e.g. 240.5).');

function wholeCents(value: number): number {
  const cents = toCents(value);
  if (Math.abs(cents - value * 100) > 1e-6)
    throw new ToolRejection(`Amount ${value} is not in whole cents; round it to two decimals.`);
  return cents;
}

export const issueRefund = defineTool({
  name: 'issue_refund',
  miniDescription: 'Refund money on a booking.',
  description:
    "Refund money to the booking's original payment (card). Updates the payment's refunded amount and status. At most what was paid minus earlier refunds. The policy decides amounts and when approval is needed first.",
  input: { booking_id: bookingId, amount, reason: z.enum(REFUND_REASONS).describe('Why the money goes back.') },
  readOnly: false,
  async handler(ctx, args) {
    const cents = wholeCents(args.amount);
    await requireBooking(ctx, args.booking_id);
    const payment = await selectOne(
      ctx.db,
      'SELECT * FROM payments WHERE booking_id = $1 ORDER BY payment_id LIMIT 1',
      [args.booking_id],
      `Booking ${args.booking_id} has no payment to refund.`,
    );
    const left = toCents(Number(payment.amount)) - toCents(Number(payment.refunded_amount));
    if (cents > left)
      throw new ToolRejection(`Only ${fromCents(left)} of booking ${args.booking_id} can still be refunded.`);
    const refundId = await ctx.nextId('refund');
    await ctx.db.query(
      "UPDATE payments SET refunded_amount = refunded_amount + $2, status = CASE WHEN refunded_amount + $2 >= amount THEN 'refunded' ELSE 'partially_refunded' END WHERE payment_id = $1",
      [payment.payment_id, fromCents(cents)],
    );
    await ctx.db.query(
      'INSERT INTO refunds (refund_id, booking_id, payment_id, amount, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [refundId, args.booking_id, payment.payment_id, fromCents(cents), args.reason, ctx.now],
    );
    await writeAudit(ctx, {
      entityType: 'booking',
      entityId: args.booking_id,
      action: `refund:${args.reason}`,
      detail: `${refundId} ${fromCents(cents)}`,
    });
    return {
      refund_id: refundId,
      booking_id: args.booking_id,
      amount: fromCents(cents),
      payment_id: payment.payment_id,
    };
  },
});

export const issueTravelCredit = defineTool({
  name: 'issue_travel_credit',
  description:
    'Give the traveller a travel credit (valid 365 days, usable for a future booking, not cash), e.g. for a cancelled non-refundable fare.',
  input: { traveler_id: z.string().describe('The traveller id.'), booking_id: bookingId, amount },
  readOnly: false,
  async handler(ctx, args) {
    const cents = wholeCents(args.amount);
    const booking = await requireBooking(ctx, args.booking_id);
    if (booking.traveler_id !== args.traveler_id)
      throw new ToolRejection(`Booking ${args.booking_id} does not belong to traveller ${args.traveler_id}.`);
    const creditId = await ctx.nextId('credit');
    await ctx.db.query(
      'INSERT INTO travel_credits (credit_id, traveler_id, booking_id, amount, expires_on, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [creditId, args.traveler_id, args.booking_id, fromCents(cents), isoDate(addDays(ctx.now, 365)), ctx.now],
    );
    await writeAudit(ctx, {
      entityType: 'booking',
      entityId: args.booking_id,
      action: 'travel_credit',
      detail: `${creditId} ${fromCents(cents)}`,
    });
    return { credit_id: creditId, amount: fromCents(cents), expires_on: isoDate(addDays(ctx.now, 365)) };
  },
});

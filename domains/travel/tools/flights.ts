import {
  defineTool,
  type JsonRow,
  selectJson,
  selectOne,
  type ToolContext,
  ToolRejection,
  writeAudit,
  z,
} from 'finalstate/domain';
import { bookingId, refreshBookingStatus, requireBooking } from './bookings.js';

const segmentId = z.string().describe('The flight segment id within the booking, e.g. BKG-100231-F1.');

async function requireSegment(ctx: ToolContext, booking: string, segment: string): Promise<JsonRow> {
  await requireBooking(ctx, booking);
  const row = await selectOne(
    ctx.db,
    `SELECT g.*, f.status AS flight_status, f.departs_at <= $3::timestamptz AS departed
       FROM flight_segments g JOIN flights f ON f.flight_id = g.flight_id WHERE g.segment_id = $1 AND g.booking_id = $2`,
    [segment, booking, ctx.now],
    `Booking ${booking} has no flight segment ${segment}.`,
  );
  if (row.status !== 'ticketed') throw new ToolRejection(`Segment ${segment} is ${row.status}.`);
  return row;
}

export const getFlight = defineTool({
  name: 'get_flight',
  description:
    'Get a flight: number, route, scheduled departure and arrival (UTC), operational status (scheduled, delayed, cancelled) and delay in minutes.',
  input: { flight_id: z.string().describe('The flight id, e.g. GT412-2026-04-02.') },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      'SELECT * FROM flights WHERE flight_id = $1',
      [args.flight_id],
      `No flight ${args.flight_id}.`,
    );
  },
});

export const cancelFlightSegment = defineTool({
  name: 'cancel_flight_segment',
  miniDescription: 'Cancel a flight segment.',
  description:
    'Cancel a ticketed flight segment of a booking (before departure, or any time if the airline cancelled the flight). It does not move money: then refund with issue_refund or give a travel credit with issue_travel_credit, as the fare rules in the policy say.',
  input: { booking_id: bookingId, segment_id: segmentId },
  readOnly: false,
  async handler(ctx, args) {
    const segment = await requireSegment(ctx, args.booking_id, args.segment_id);
    if (segment.departed === true && segment.flight_status !== 'cancelled')
      throw new ToolRejection(`Flight ${segment.flight_id} has already departed; the segment cannot be cancelled.`);
    await ctx.db.query("UPDATE flight_segments SET status = 'cancelled' WHERE segment_id = $1", [args.segment_id]);
    await refreshBookingStatus(ctx, args.booking_id);
    await writeAudit(ctx, { entityType: 'flight_segment', entityId: args.segment_id, action: 'cancel' });
    return {
      segment_id: args.segment_id,
      status: 'cancelled',
      fare_type: segment.fare_type,
      price: Number(segment.price),
    };
  },
});

export const changeSeat = defineTool({
  name: 'change_seat',
  miniDescription: 'Change the seat of a segment.',
  description:
    'Assign another seat (row number + letter, e.g. 14C) on a ticketed segment whose flight has not departed. Fails if another passenger holds that seat.',
  input: {
    booking_id: bookingId,
    segment_id: segmentId,
    seat: z
      .string()
      .regex(/^[1-9][0-9]?[A-K]$/)
      .describe('The new seat, e.g. 14C.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const segment = await requireSegment(ctx, args.booking_id, args.segment_id);
    if (segment.departed === true) throw new ToolRejection(`Flight ${segment.flight_id} has already departed.`);
    const taken = await selectJson(
      ctx.db,
      "SELECT segment_id FROM flight_segments WHERE flight_id = $1 AND seat = $2 AND status = 'ticketed' AND segment_id <> $3",
      [segment.flight_id, args.seat, args.segment_id],
    );
    if (taken.length > 0)
      throw new ToolRejection(`Seat ${args.seat} on ${segment.flight_id} is taken; offer another seat.`);
    await ctx.db.query('UPDATE flight_segments SET seat = $2 WHERE segment_id = $1', [args.segment_id, args.seat]);
    await writeAudit(ctx, {
      entityType: 'flight_segment',
      entityId: args.segment_id,
      action: 'seat_change',
      detail: `${segment.seat ?? 'none'} -> ${args.seat}`,
    });
    return { segment_id: args.segment_id, seat: args.seat };
  },
});

import { defineTool, hoursBetween, type JsonRow, selectJson, selectOne, type ToolContext, z } from 'finalstate/domain';
import { TRAVEL_RULES } from '../policy.js';

export const bookingId = z.string().describe('The booking id, e.g. BKG-100231.');

export async function requireBooking(ctx: ToolContext, id: string): Promise<JsonRow> {
  return selectOne(
    ctx.db,
    'SELECT * FROM bookings WHERE booking_id = $1',
    [id],
    `No booking ${id}. Check the reference or use list_traveler_bookings.`,
  );
}

/** After a cancellation: cancelled when nothing is left, partially_cancelled when something is. */
export async function refreshBookingStatus(ctx: ToolContext, id: string): Promise<void> {
  await ctx.db.query(
    `UPDATE bookings b SET status = CASE
        WHEN NOT EXISTS (SELECT 1 FROM hotel_stays WHERE booking_id = b.booking_id AND status = 'booked')
         AND NOT EXISTS (SELECT 1 FROM flight_segments WHERE booking_id = b.booking_id AND status = 'ticketed') THEN 'cancelled'
        ELSE 'partially_cancelled' END
      WHERE booking_id = $1`,
    [id],
  );
}

export const listTravelerBookings = defineTool({
  name: 'list_traveler_bookings',
  description:
    "List a traveller's bookings, newest first: id, company (null = personal trip), status, total, created_at.",
  input: { traveler_id: z.string().describe('The traveller id.') },
  readOnly: true,
  async handler(ctx, args) {
    await selectOne(
      ctx.db,
      'SELECT traveler_id FROM travelers WHERE traveler_id = $1',
      [args.traveler_id],
      `No traveller ${args.traveler_id}.`,
    );
    return {
      bookings: await selectJson(
        ctx.db,
        'SELECT booking_id, company_id, status, total, created_at FROM bookings WHERE traveler_id = $1 ORDER BY created_at DESC, booking_id DESC',
        [args.traveler_id],
      ),
    };
  },
});

interface BookingView {
  booking_id: string;
  status: string;
  total: number;
  hotel_stays: {
    stay_id: string;
    room_code: string;
    check_in: string;
    nights: number;
    nightly_rate: number;
    free_cancel_hours: number;
    status: string;
  }[];
  flight_segments: {
    segment_id: string;
    departs_at: string;
    flight_status: string;
    fare_type: string;
    seat: string | null;
    price: number;
    status: string;
  }[];
}

/** The mini profile's booking: what its policy needs, with the hours left computed from the episode clock. */
function miniBooking(result: unknown, { now }: { now: Date }): unknown {
  const b = result as BookingView;
  const checkIn = (day: string) =>
    new Date(`${day.slice(0, 10)}T${String(TRAVEL_RULES.checkInHourUtc).padStart(2, '0')}:00:00Z`);
  return {
    booking_id: b.booking_id,
    status: b.status,
    hotel_stays: b.hotel_stays.map((s) => ({
      stay_id: s.stay_id,
      room_code: s.room_code,
      nights: s.nights,
      nightly_rate: s.nightly_rate,
      hours_to_check_in: hoursBetween(now, checkIn(s.check_in)),
      free_cancel_hours: s.free_cancel_hours,
      status: s.status,
    })),
    flight_segments: b.flight_segments.map((g) => ({
      segment_id: g.segment_id,
      hours_to_departure: hoursBetween(now, new Date(g.departs_at)),
      flight_status: g.flight_status,
      fare_type: g.fare_type,
      price: g.price,
      status: g.status,
    })),
  };
}

export const getBooking = defineTool({
  name: 'get_booking',
  miniDescription: 'Get a booking.',
  description:
    "Get a booking with everything needed to handle it: traveller, company (null = personal trip) and whether its changes need approval, status, total, created_at; hotel stays (stay_id, hotel, room_code, check_in, check_out, nights, nightly_rate, the hotel's free_cancel_hours, status); flight segments (segment_id, flight, departure, flight status and delay, cabin, fare_type, seat, price, status); the payment with the amount already refunded; refunds and travel credits issued.",
  input: { booking_id: bookingId },
  readOnly: true,
  miniResult: miniBooking,
  async handler(ctx, args) {
    const booking = await selectOne(
      ctx.db,
      `SELECT b.booking_id, b.traveler_id, b.company_id, COALESCE(c.changes_require_approval, false) AS changes_require_approval, b.status, b.total, b.created_at
         FROM bookings b LEFT JOIN companies c ON c.company_id = b.company_id WHERE b.booking_id = $1`,
      [args.booking_id],
      `No booking ${args.booking_id}. Check the reference or use list_traveler_bookings.`,
    );
    const id = [args.booking_id];
    return {
      ...booking,
      hotel_stays: await selectJson(
        ctx.db,
        `SELECT s.stay_id, s.hotel_id, h.name AS hotel_name, h.city, s.room_code, r.description AS room, s.check_in, s.check_out, (s.check_out - s.check_in) AS nights,
                s.nightly_rate, h.free_cancel_hours, s.status, s.cancellation_fee
           FROM hotel_stays s JOIN hotels h ON h.hotel_id = s.hotel_id JOIN room_types r ON r.hotel_id = s.hotel_id AND r.room_code = s.room_code
          WHERE s.booking_id = $1 ORDER BY s.stay_id`,
        id,
      ),
      flight_segments: await selectJson(
        ctx.db,
        `SELECT g.segment_id, g.flight_id, f.flight_number, f.origin, f.destination, f.departs_at, f.status AS flight_status, f.delay_minutes,
                g.cabin, g.fare_type, g.seat, g.price, g.status
           FROM flight_segments g JOIN flights f ON f.flight_id = g.flight_id WHERE g.booking_id = $1 ORDER BY g.segment_id`,
        id,
      ),
      payments: await selectJson(
        ctx.db,
        'SELECT payment_id, method, amount, refunded_amount, status FROM payments WHERE booking_id = $1 ORDER BY payment_id',
        id,
      ),
      refunds: await selectJson(
        ctx.db,
        'SELECT refund_id, amount, reason, created_at FROM refunds WHERE booking_id = $1 ORDER BY refund_id',
        id,
      ),
      travel_credits: await selectJson(
        ctx.db,
        'SELECT credit_id, amount, expires_on FROM travel_credits WHERE booking_id = $1 ORDER BY credit_id',
        id,
      ),
    };
  },
});

export const listApprovals = defineTool({
  name: 'list_approvals',
  description:
    "List the manager approvals recorded for a booking: request_type (room_change, cancellation), approver, status (pending, approved, rejected). Only an approved approval of the matching type allows a change that the company's policy gates.",
  input: { booking_id: bookingId },
  readOnly: true,
  async handler(ctx, args) {
    await requireBooking(ctx, args.booking_id);
    return {
      approvals: await selectJson(
        ctx.db,
        'SELECT approval_id, request_type, approver_email, status, decided_at FROM approvals WHERE booking_id = $1 ORDER BY approval_id',
        [args.booking_id],
      ),
    };
  },
});

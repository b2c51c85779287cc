import {
  defineTool,
  fromCents,
  type JsonRow,
  selectJson,
  selectOne,
  toCents,
  type ToolContext,
  ToolRejection,
  writeAudit,
  z,
} from 'finalstate/domain';
import { bookingId, refreshBookingStatus, requireBooking } from './bookings.js';

const stayId = z.string().describe('The hotel stay id within the booking, e.g. BKG-100231-H1.');

/** A stay of the booking that has not started yet (check-in is at 15:00 UTC on the check-in date). */
async function requireUpcomingStay(ctx: ToolContext, booking: string, stay: string): Promise<JsonRow> {
  await requireBooking(ctx, booking);
  const row = await selectOne(
    ctx.db,
    `SELECT s.*, (s.check_out - s.check_in) AS nights, (s.check_in + time '15:00') AT TIME ZONE 'UTC' <= $3::timestamptz AS started
       FROM hotel_stays s WHERE s.stay_id = $1 AND s.booking_id = $2`,
    [stay, booking, ctx.now],
    `Booking ${booking} has no hotel stay ${stay}.`,
  );
  if (row.status !== 'booked') throw new ToolRejection(`Stay ${stay} is ${row.status}.`);
  if (row.started === true)
    throw new ToolRejection(
      `Stay ${stay} has already started (check-in ${row.check_in}); the hotel must handle changes at the front desk.`,
    );
  return row;
}

export const getHotel = defineTool({
  name: 'get_hotel',
  description:
    "Get a hotel: name, city, free-cancellation period (free_cancel_hours before check-in at 15:00 UTC) and its room types with today's nightly rates.",
  input: { hotel_id: z.string().describe('The hotel id, e.g. HTL-LON-01.') },
  readOnly: true,
  async handler(ctx, args) {
    const hotel = await selectOne(
      ctx.db,
      'SELECT hotel_id, name, city, free_cancel_hours FROM hotels WHERE hotel_id = $1',
      [args.hotel_id],
      `No hotel ${args.hotel_id}.`,
    );
    return {
      ...hotel,
      room_types: await selectJson(
        ctx.db,
        'SELECT room_code, description, nightly_rate FROM room_types WHERE hotel_id = $1 ORDER BY nightly_rate',
        [args.hotel_id],
      ),
    };
  },
});

export const changeRoomType = defineTool({
  name: 'change_room_type',
  miniDescription: 'Change the room type of a stay.',
  description:
    "Move an upcoming hotel stay to another room type of the same hotel at that room's nightly rate, and update the booking total. It does not move money: refund a cheaper room's difference with issue_refund. Check the company's approval rules before using it on a corporate booking.",
  input: {
    booking_id: bookingId,
    stay_id: stayId,
    room_code: z.string().describe('The new room type code, from get_hotel (e.g. STD, SUP, DLX).'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const stay = await requireUpcomingStay(ctx, args.booking_id, args.stay_id);
    if (stay.room_code === args.room_code)
      throw new ToolRejection(`Stay ${args.stay_id} is already in room type ${args.room_code}.`);
    const room = await selectOne(
      ctx.db,
      'SELECT nightly_rate FROM room_types WHERE hotel_id = $1 AND room_code = $2',
      [stay.hotel_id, args.room_code],
      `Hotel ${stay.hotel_id} has no room type ${args.room_code}.`,
    );
    const nights = Number(stay.nights);
    const deltaCents = (toCents(Number(room.nightly_rate)) - toCents(Number(stay.nightly_rate))) * nights;
    await ctx.db.query('UPDATE hotel_stays SET room_code = $2, nightly_rate = $3 WHERE stay_id = $1', [
      args.stay_id,
      args.room_code,
      room.nightly_rate,
    ]);
    await ctx.db.query('UPDATE bookings SET total = total + $2 WHERE booking_id = $1', [
      args.booking_id,
      fromCents(deltaCents),
    ]);
    await writeAudit(ctx, {
      entityType: 'hotel_stay',
      entityId: args.stay_id,
      action: 'room_change',
      detail: `${stay.room_code} -> ${args.room_code}`,
    });
    return {
      stay_id: args.stay_id,
      room_code: args.room_code,
      nightly_rate: Number(room.nightly_rate),
      nights,
      total_change: fromCents(deltaCents),
    };
  },
});

export const cancelHotelStay = defineTool({
  name: 'cancel_hotel_stay',
  miniDescription: 'Cancel a hotel stay with a fee.',
  description:
    'Cancel an upcoming hotel stay, recording the cancellation fee the policy gives (0 inside the free-cancellation period). It does not move money: refund the stay total minus the fee with issue_refund.',
  input: {
    booking_id: bookingId,
    stay_id: stayId,
    cancellation_fee: z.number().min(0).describe('Fee in dollars kept by the hotel; 0 when cancelled in time.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const stay = await requireUpcomingStay(ctx, args.booking_id, args.stay_id);
    const stayCents = toCents(Number(stay.nightly_rate)) * Number(stay.nights);
    if (toCents(args.cancellation_fee) > stayCents)
      throw new ToolRejection(`The fee ${args.cancellation_fee} exceeds the stay total ${fromCents(stayCents)}.`);
    await ctx.db.query("UPDATE hotel_stays SET status = 'cancelled', cancellation_fee = $2 WHERE stay_id = $1", [
      args.stay_id,
      args.cancellation_fee,
    ]);
    await refreshBookingStatus(ctx, args.booking_id);
    await writeAudit(ctx, {
      entityType: 'hotel_stay',
      entityId: args.stay_id,
      action: 'cancel',
      detail: `fee ${args.cancellation_fee}`,
    });
    return {
      stay_id: args.stay_id,
      status: 'cancelled',
      cancellation_fee: args.cancellation_fee,
      refundable_amount: fromCents(stayCents - toCents(args.cancellation_fee)),
    };
  },
});

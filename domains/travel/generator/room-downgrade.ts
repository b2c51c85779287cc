import { call, fromCents, type Scenario, sqlString, toCents } from 'finalstate/domain';
import { HOTELS } from '../seed.js';
import { TRAVEL_RULES } from '../policy.js';
import {
  approvalLookups,
  bookingRequestDraft,
  initFor,
  makeBooking,
  pickApproval,
  refundAssertion,
  travellerFor,
} from './fixtures.js';

/** A cheaper room type of the same hotel: change the stay and refund the nightly difference (after approval where gated). */
export const roomDowngradeScenario: Scenario = {
  type: 'room_downgrade',
  profiles: ['full', 'mini'],
  build(ctx) {
    const approval = pickApproval(ctx);
    const traveler = travellerFor(ctx, approval);
    const hotel = ctx.rng.pick(HOTELS);
    const from = ctx.rng.int(1, hotel.rooms.length - 1);
    const current = hotel.rooms[from]!;
    const target = hotel.rooms[ctx.rng.int(0, from - 1)]!;
    const perNight = toCents(current.nightly_rate) - toCents(target.nightly_rate);
    const nights = Math.min(ctx.rng.int(2, 5), Math.floor((TRAVEL_RULES.refundApprovalThreshold * 100) / perNight));
    const booking = makeBooking(ctx, traveler, {
      corporate: approval !== 'personal',
      createdHoursAgo: ctx.rng.int(48, 600),
      stays: [{ hotel, room: current, checkInDaysAhead: ctx.rng.int(2, 30), nights }],
      approvals: approval === 'approved' ? [{ request_type: 'room_change', status: 'approved' }] : [],
    });
    const stay = booking.stays[0]!;
    const refund = fromCents(perNight * nights);
    return bookingRequestDraft(ctx, {
      traveler,
      bookingId: booking.booking_id,
      init: initFor(traveler, booking),
      miniQuery: `Please downgrade stay ${stay.stay_id} of booking ${booking.booking_id} to room type ${target.room_code}.`,
      fullQuery: `For my ${hotel.name} stay on booking ${booking.booking_id}, I'd rather have the cheaper ${target.description.toLowerCase()} (${target.room_code}). Can you switch it and refund the difference?`,
      goal: `downgrade your room at ${hotel.name} (booking ${booking.booking_id}) to ${target.room_code} and get the difference back.`,
      lookups: [...approvalLookups(approval, booking.booking_id), call('get_hotel', { hotel_id: hotel.hotel_id })],
      actions: [
        call('change_room_type', {
          booking_id: booking.booking_id,
          stay_id: stay.stay_id,
          room_code: target.room_code,
        }),
        call('issue_refund', { booking_id: booking.booking_id, amount: refund, reason: 'room_downgrade' }),
      ],
      ticket: { category: 'booking_change', final: 'solved' },
      assertions: [
        {
          description: 'stay moved to the cheaper room',
          sql: `SELECT room_code, nightly_rate::text AS rate FROM hotel_stays WHERE stay_id = ${sqlString(stay.stay_id)}`,
          expect: [{ room_code: target.room_code, rate: target.nightly_rate.toFixed(2) }],
        },
        refundAssertion(booking.booking_id, [{ amount: refund, reason: 'room_downgrade' }]),
      ],
    });
  },
};

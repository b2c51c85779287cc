import { call, fromCents, type Scenario, type ScenarioContext, sqlString, toCents } from 'finalstate/domain';
import { TRAVEL_RULES } from '../policy.js';
import { HOTELS } from '../seed.js';
import {
  approvalLookups,
  bookingRequestDraft,
  checkInCandidates,
  checkInDaysFor,
  initFor,
  makeBooking,
  pickApproval,
  refundAssertion,
  travellerFor,
} from './fixtures.js';

/** Cancel a hotel stay: free inside the free-cancellation period, one night's fee after it; refund the rest. */
function hotelCancel(ctx: ScenarioContext, window: 'free' | 'late') {
  const approval = pickApproval(ctx);
  const traveler = travellerFor(ctx, approval);
  // A hotel with a 24-hour period has no late window left when the clock is already past mid-afternoon.
  const hotel = ctx.rng.pick(HOTELS.filter((h) => checkInCandidates(ctx, h, window).length > 0));
  const room = ctx.rng.pick(hotel.rooms);
  const nights = Math.max(
    2,
    Math.min(ctx.rng.int(2, 5), Math.floor(TRAVEL_RULES.refundApprovalThreshold / room.nightly_rate)),
  );
  const booking = makeBooking(ctx, traveler, {
    corporate: approval !== 'personal',
    createdHoursAgo: ctx.rng.int(48, 900),
    stays: [{ hotel, room, checkInDaysAhead: checkInDaysFor(ctx, hotel, window), nights }],
    approvals: approval === 'approved' ? [{ request_type: 'cancellation', status: 'approved' }] : [],
  });
  const stay = booking.stays[0]!;
  const fee = window === 'free' ? 0 : room.nightly_rate;
  const refund = fromCents(toCents(stay.total) - toCents(fee));
  return bookingRequestDraft(ctx, {
    traveler,
    bookingId: booking.booking_id,
    init: initFor(traveler, booking),
    miniQuery: `Please cancel hotel stay ${stay.stay_id} of booking ${booking.booking_id}.`,
    fullQuery: `I need to cancel my hotel at ${hotel.name} on booking ${booking.booking_id}, my plans changed. How much do I get back?`,
    goal: `cancel your stay at ${hotel.name} (booking ${booking.booking_id}) and get your money back.`,
    lookups: approvalLookups(approval, booking.booking_id),
    actions: [
      call('cancel_hotel_stay', { booking_id: booking.booking_id, stay_id: stay.stay_id, cancellation_fee: fee }),
      call('issue_refund', { booking_id: booking.booking_id, amount: refund, reason: 'hotel_cancellation' }),
    ],
    ticket: { category: 'cancellation', final: 'solved' },
    assertions: [
      {
        description: 'stay cancelled with the policy fee',
        sql: `SELECT status, cancellation_fee::text AS fee FROM hotel_stays WHERE stay_id = ${sqlString(stay.stay_id)}`,
        expect: [{ status: 'cancelled', fee: fee.toFixed(2) }],
      },
      refundAssertion(booking.booking_id, [{ amount: refund, reason: 'hotel_cancellation' }]),
    ],
  });
}

export const hotelCancelFreeScenario: Scenario = {
  type: 'hotel_cancel_free',
  profiles: ['full', 'mini'],
  build: (ctx) => hotelCancel(ctx, 'free'),
};
export const hotelCancelLateScenario: Scenario = {
  type: 'hotel_cancel_late_fee',
  profiles: ['full', 'mini'],
  build: (ctx) => hotelCancel(ctx, 'late'),
};

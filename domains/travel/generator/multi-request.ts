import { call, type Scenario, sqlString } from 'finalstate/domain';
import { TRAVEL_RULES } from '../policy.js';
import {
  bookingRequestDraft,
  checkInDaysFor,
  initFor,
  makeBooking,
  makeTraveler,
  pickCompany,
  pickHotelRoom,
  refundAssertion,
} from './fixtures.js';

/** Two requests on one trip: cancel the hotel in time (refund) and move the flight seat; three writes, one ticket. */
export const multiRequestScenario: Scenario = {
  type: 'multi_request',
  profiles: ['full'],
  build(ctx) {
    const traveler = makeTraveler(ctx, { company: ctx.rng.chance(0.5) ? pickCompany(ctx.rng, false) : null });
    const { hotel, room } = pickHotelRoom(ctx.rng, true);
    const booking = makeBooking(ctx, traveler, {
      corporate: traveler.company !== null,
      createdHoursAgo: ctx.rng.int(48, 900),
      stays: [{ hotel, room, checkInDaysAhead: checkInDaysFor(ctx, hotel, 'free'), nights: ctx.rng.int(1, 3) }],
      segments: [
        {
          departsInHours: ctx.rng.int(TRAVEL_RULES.seatChangeCutoffHours + 6, 500),
          fare_type: 'non_refundable',
          price: ctx.rng.int(150, 700),
        },
      ],
    });
    const stay = booking.stays[0]!;
    const segment = booking.segments[0]!;
    let seat = `${ctx.rng.int(3, 40)}${ctx.rng.pick(['A', 'F'])}`;
    while (seat === segment.seat) seat = `${ctx.rng.int(3, 40)}${ctx.rng.pick(['A', 'F'])}`;
    const id = booking.booking_id;
    return bookingRequestDraft(ctx, {
      traveler,
      bookingId: id,
      init: initFor(traveler, booking),
      fullQuery: `Two things on booking ${id}: I'm staying with friends, so please cancel the ${hotel.name} reservation, and I'd like a window seat on flight ${segment.flight_number}.`,
      goal: `cancel the hotel on booking ${id} with a refund and get window seat ${seat} on flight ${segment.flight_number}.`,
      facts: { wanted_seat: seat },
      actions: [
        call('cancel_hotel_stay', { booking_id: id, stay_id: stay.stay_id, cancellation_fee: 0 }),
        call('issue_refund', { booking_id: id, amount: stay.total, reason: 'hotel_cancellation' }),
        call('change_seat', { booking_id: id, segment_id: segment.segment_id, seat }),
      ],
      ticket: { category: 'cancellation', final: 'solved' },
      assertions: [
        refundAssertion(id, [{ amount: stay.total, reason: 'hotel_cancellation' }]),
        {
          description: 'booking partly cancelled, seat moved',
          sql: `SELECT b.status, g.seat FROM bookings b JOIN flight_segments g ON g.booking_id = b.booking_id WHERE b.booking_id = ${sqlString(id)}`,
          expect: [{ status: 'partially_cancelled', seat }],
        },
      ],
    });
  },
};

import { call, type Scenario, sqlString } from 'finalstate/domain';
import { TRAVEL_RULES } from '../policy.js';
import { bookingRequestDraft, initFor, makeBooking, makeTraveler, pickCompany, refundAssertion } from './fixtures.js';

/** The airline cancelled or badly delayed the flight: full refund whatever the fare, no approval needed, urgent ticket. */
export const flightDisruptionScenario: Scenario = {
  type: 'flight_disruption',
  profiles: ['full', 'mini'],
  build(ctx) {
    const corporate = ctx.profile === 'full' && ctx.rng.chance(0.5);
    const traveler = makeTraveler(ctx, { company: corporate ? pickCompany(ctx.rng, ctx.rng.chance(0.5)) : null });
    const cancelled = ctx.profile === 'mini' || ctx.rng.chance(0.5);
    const price = ctx.rng.int(150, 900);
    const booking = makeBooking(ctx, traveler, {
      corporate,
      createdHoursAgo: ctx.rng.int(48, 900),
      segments: [
        {
          departsInHours: ctx.rng.int(2, 30),
          fare_type: ctx.rng.pick(['refundable', 'non_refundable'] as const),
          price,
          flightStatus: cancelled ? 'cancelled' : 'delayed',
          delayMinutes: cancelled ? 0 : ctx.rng.int(TRAVEL_RULES.disruptionDelayMinutes, 600),
        },
      ],
    });
    const segment = booking.segments[0]!;
    const id = booking.booking_id;
    return bookingRequestDraft(ctx, {
      traveler,
      bookingId: id,
      init: initFor(traveler, booking),
      miniQuery: `The airline ${cancelled ? 'cancelled' : 'delayed'} my flight. Please cancel segment ${segment.segment_id} of booking ${id} and refund me.`,
      fullQuery: `My flight ${segment.flight_number} on booking ${id} has been ${cancelled ? 'cancelled by the airline' : 'delayed for hours'}. I can't use it any more — please cancel it and refund me.`,
      goal: `get flight ${segment.flight_number} on booking ${id} cancelled and refunded because of the disruption.`,
      actions: [
        call('cancel_flight_segment', { booking_id: id, segment_id: segment.segment_id }),
        call('issue_refund', { booking_id: id, amount: price, reason: 'airline_disruption' }),
      ],
      ticket: { category: 'flight_disruption', final: 'solved', priority: 'urgent' },
      assertions: [
        {
          description: 'segment cancelled',
          sql: `SELECT status FROM flight_segments WHERE segment_id = ${sqlString(segment.segment_id)}`,
          expect: [{ status: 'cancelled' }],
        },
        refundAssertion(id, [{ amount: price, reason: 'airline_disruption' }]),
      ],
    });
  },
};

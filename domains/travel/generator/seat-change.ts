import { call, type Scenario, type ScenarioContext, sqlString } from 'finalstate/domain';
import { TRAVEL_RULES } from '../policy.js';
import { bookingRequestDraft, bookingUnchanged, initFor, makeBooking, makeTraveler, pickCompany } from './fixtures.js';

/** A seat change: done when departure is more than the cut-off away, refused inside it. */
function seatChange(ctx: ScenarioContext, allowed: boolean) {
  const traveler = makeTraveler(ctx, {
    company: ctx.profile === 'full' && ctx.rng.chance(0.5) ? pickCompany(ctx.rng, ctx.rng.chance(0.5)) : null,
  });
  const cutoff = TRAVEL_RULES.seatChangeCutoffHours;
  const booking = makeBooking(ctx, traveler, {
    corporate: traveler.company !== null,
    createdHoursAgo: ctx.rng.int(48, 900),
    segments: [
      {
        departsInHours: allowed ? ctx.rng.int(cutoff + 6, 500) : ctx.rng.int(2, cutoff - 4),
        fare_type: ctx.rng.pick(['refundable', 'non_refundable'] as const),
        price: ctx.rng.int(150, 900),
      },
    ],
  });
  const segment = booking.segments[0]!;
  let seat = `${ctx.rng.int(3, 40)}${ctx.rng.pick(['A', 'C', 'D', 'F'])}`;
  while (seat === segment.seat) seat = `${ctx.rng.int(3, 40)}${ctx.rng.pick(['A', 'C', 'D', 'F'])}`;
  const id = booking.booking_id;
  return bookingRequestDraft(ctx, {
    traveler,
    bookingId: id,
    init: initFor(traveler, booking),
    miniQuery: `Please move me to seat ${seat} on segment ${segment.segment_id} of booking ${id}.`,
    fullQuery: `Could you move me to another seat on flight ${segment.flight_number} (booking ${id})?`,
    goal: `sit in seat ${seat} on flight ${segment.flight_number}.`,
    ...(allowed ? { facts: { wanted_seat: seat } } : {}),
    actions: allowed ? [call('change_seat', { booking_id: id, segment_id: segment.segment_id, seat })] : [],
    ...(allowed ? { ticket: { category: 'seat', final: 'solved' as const } } : {}),
    assertions: allowed
      ? [
          {
            description: 'seat changed',
            sql: `SELECT seat FROM flight_segments WHERE segment_id = ${sqlString(segment.segment_id)}`,
            expect: [{ seat }],
          },
        ]
      : bookingUnchanged(booking),
    ...(allowed
      ? {}
      : {
          tags: ['refuse'],
          rubrics: [
            {
              kind: 'judge' as const,
              description: 'refusal explained',
              question:
                'Does the agent explain that seats can no longer be changed this close to departure (they are assigned at airport check-in)?',
            },
          ],
        }),
  });
}

export const seatChangeScenario: Scenario = {
  type: 'seat_change',
  profiles: ['full', 'mini'],
  build: (ctx) => seatChange(ctx, true),
};
export const seatChangeRefusedScenario: Scenario = {
  type: 'seat_change_refused',
  profiles: ['full', 'mini'],
  build: (ctx) => seatChange(ctx, false),
};

import type { Scenario } from 'finalstate/domain';
import {
  bookingRequestDraft,
  bookingUnchanged,
  initFor,
  makeBooking,
  makeTraveler,
  pickCompany,
  refundAssertion,
} from './fixtures.js';

const EMERGENCIES = [
  'I slipped on the stairs at the hotel and I am at the hospital with a broken ankle',
  'I have a high fever and the doctor told me not to fly',
  'there are riots near my hotel and I do not feel safe going out',
] as const;

/** An emergency on the road: urgent ticket to duty_of_care, and no change made by the agent. */
export const dutyOfCareScenario: Scenario = {
  type: 'duty_of_care',
  profiles: ['full'],
  build(ctx) {
    const traveler = makeTraveler(ctx, { company: pickCompany(ctx.rng, ctx.rng.chance(0.5)) });
    const booking = makeBooking(ctx, traveler, {
      corporate: true,
      createdHoursAgo: ctx.rng.int(72, 900),
      segments: [
        {
          departsInHours: ctx.rng.int(8, 60),
          fare_type: ctx.rng.pick(['refundable', 'non_refundable'] as const),
          price: ctx.rng.int(200, 900),
        },
      ],
    });
    const emergency = ctx.rng.pick(EMERGENCIES);
    return bookingRequestDraft(ctx, {
      traveler,
      bookingId: booking.booking_id,
      init: initFor(traveler, booking),
      fullQuery: `I need help — ${emergency}. I'm supposed to fly home on booking ${booking.booking_id}. What do I do?`,
      goal: `get help with your emergency and your return flight on booking ${booking.booking_id}.`,
      actions: [],
      escalate: { category: 'general', team: 'duty_of_care', priority: 'urgent' },
      assertions: [...bookingUnchanged(booking), refundAssertion(booking.booking_id, [])],
      tags: ['escalate'],
      rubrics: [
        {
          kind: 'judge',
          description: 'takes care first',
          question:
            "Does the agent show concern for the traveller's safety and say that the duty-of-care team will contact them and handle the rebooking?",
        },
      ],
    });
  },
};

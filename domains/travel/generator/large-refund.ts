import type { Scenario } from 'finalstate/domain';
import { TRAVEL_RULES } from '../policy.js';
import {
  bookingRequestDraft,
  bookingUnchanged,
  initFor,
  makeBooking,
  makeTraveler,
  pickCompany,
  refundAssertion,
} from './fixtures.js';

/** A refundable business fare above the refund limit: nothing is cancelled or refunded; the supervisor decides. */
export const largeRefundScenario: Scenario = {
  type: 'large_refund_supervisor',
  profiles: ['full'],
  build(ctx) {
    const traveler = makeTraveler(ctx, { company: ctx.rng.chance(0.5) ? pickCompany(ctx.rng, false) : null });
    const price = TRAVEL_RULES.refundApprovalThreshold + ctx.rng.int(150, 4000);
    const booking = makeBooking(ctx, traveler, {
      corporate: traveler.company !== null,
      createdHoursAgo: ctx.rng.int(48, 900),
      segments: [{ departsInHours: ctx.rng.int(48, 600), fare_type: 'refundable', price, cabin: 'business' }],
    });
    const segment = booking.segments[0]!;
    return bookingRequestDraft(ctx, {
      traveler,
      bookingId: booking.booking_id,
      init: initFor(traveler, booking),
      fullQuery: `Please cancel my business-class flight ${segment.flight_number} on booking ${booking.booking_id} and refund the fare; it's refundable.`,
      goal: `cancel flight ${segment.flight_number} (booking ${booking.booking_id}) and get the fare refunded.`,
      actions: [],
      escalate: { category: 'cancellation', team: 'supervisor' },
      assertions: [...bookingUnchanged(booking), refundAssertion(booking.booking_id, [])],
      tags: ['escalate', 'supervisor-approval'],
    });
  },
};

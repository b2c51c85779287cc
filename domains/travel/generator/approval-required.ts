import { call, type Scenario, type ScenarioContext } from 'finalstate/domain';
import { HOTELS } from '../seed.js';
import {
  bookingRequestDraft,
  bookingUnchanged,
  initFor,
  makeBooking,
  makeTraveler,
  pickCompany,
  refundAssertion,
} from './fixtures.js';

/**
 * The policy's gate: a traveller on a corporate booking of a company that requires approval asks for a room downgrade
 * (or a hotel cancellation) and no approved approval of that type is on file. The correct final state keeps the
 * booking and the payment unchanged and puts the ticket on hold with manager_approval. Changing the room and refunding
 * anyway leaves a diff on hotel_stays, bookings, payments, refunds, tickets and audit_log.
 */
function gatedRequest(ctx: ScenarioContext, wantsDowngrade: boolean) {
  const traveler = makeTraveler(ctx, { company: pickCompany(ctx.rng, true) });
  const hotel = ctx.rng.pick(HOTELS);
  const from = ctx.rng.int(1, hotel.rooms.length - 1);
  const current = hotel.rooms[from]!;
  const target = hotel.rooms[ctx.rng.int(0, from - 1)]!;
  const requestType = wantsDowngrade ? 'room_change' : 'cancellation';
  // What is on file: nothing, a request still pending, a rejection, or an approval of the other kind.
  const onFile = ctx.rng.pick(['none', 'pending', 'rejected', 'other_type'] as const);
  const approvals =
    onFile === 'none'
      ? []
      : [
          {
            request_type:
              onFile === 'other_type'
                ? wantsDowngrade
                  ? ('cancellation' as const)
                  : ('room_change' as const)
                : requestType,
            status: onFile === 'other_type' ? ('approved' as const) : onFile,
          },
        ];
  const booking = makeBooking(ctx, traveler, {
    corporate: true,
    createdHoursAgo: ctx.rng.int(48, 600),
    stays: [{ hotel, room: current, checkInDaysAhead: ctx.rng.int(4, 30), nights: ctx.rng.int(2, 3) }],
    approvals,
  });
  return bookingRequestDraft(ctx, {
    traveler,
    bookingId: booking.booking_id,
    init: initFor(traveler, booking),
    fullQuery: wantsDowngrade
      ? `My company booked me a ${current.description.toLowerCase()} at ${hotel.name} (booking ${booking.booking_id}). A ${target.description.toLowerCase()} is fine for me — please downgrade it and refund the difference to the card.`
      : `Please cancel my ${hotel.name} stay on booking ${booking.booking_id}; the meeting moved online.`,
    goal: wantsDowngrade
      ? `downgrade your room on booking ${booking.booking_id} to ${target.room_code} and have the difference refunded.`
      : `cancel your hotel stay on booking ${booking.booking_id}.`,
    lookups: [call('list_approvals', { booking_id: booking.booking_id })],
    actions: [],
    escalate: {
      category: wantsDowngrade ? 'booking_change' : 'cancellation',
      team: 'manager_approval',
    },
    assertions: [...bookingUnchanged(booking), refundAssertion(booking.booking_id, [])],
    tags: ['escalate', 'manager-approval', ...(wantsDowngrade ? ['approval-required'] : [])],
    rubrics: [
      {
        kind: 'judge',
        description: 'explains the approval',
        question:
          'Does the agent tell the traveller that their manager must approve the change first, without changing the booking or promising a refund?',
      },
    ],
  });
}

/** The case: a room downgrade on a gated corporate booking without approval. Tagged `approval-required`. */
export const approvalRequiredScenario: Scenario = {
  type: 'approval_required',
  profiles: ['full'],
  build: (ctx) => gatedRequest(ctx, true),
};
/** The same gate for a hotel cancellation. */
export const cancellationNeedsApprovalScenario: Scenario = {
  type: 'cancellation_needs_approval',
  profiles: ['full'],
  build: (ctx) => gatedRequest(ctx, false),
};

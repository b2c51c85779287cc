import {
  type Assertion,
  call,
  fromCents,
  type Scenario,
  type ScenarioContext,
  sqlString,
  toCents,
  type ToolCall,
} from 'finalstate/domain';
import { TRAVEL_RULES } from '../policy.js';
import {
  approvalLookups,
  bookingRequestDraft,
  bookingUnchanged,
  initFor,
  makeBooking,
  pickApproval,
  refundAssertion,
  travellerFor,
} from './fixtures.js';

type Outcome = 'refund' | 'grace_refund' | 'credit' | 'declined' | 'refuse';

/** Cancel a flight: refundable fares and fresh bookings are refunded, other non-refundable fares become a travel credit (mini: refused). */
function flightCancel(ctx: ScenarioContext, refundable: boolean) {
  const approval = pickApproval(ctx);
  const traveler = travellerFor(ctx, approval);
  const grace = !refundable && ctx.profile === 'full' && ctx.rng.chance(0.3);
  // Offered a travel credit instead of cash, some travellers keep the flight (full profile only).
  const declines = !refundable && !grace && ctx.profile === 'full' && ctx.rng.chance(0.25);
  const outcome: Outcome = refundable
    ? 'refund'
    : ctx.profile === 'mini'
      ? 'refuse'
      : grace
        ? 'grace_refund'
        : declines
          ? 'declined'
          : 'credit';
  const price = ctx.rng.int(180, 950) + ctx.rng.pick([0, 0.5, 0.99]);
  const booking = makeBooking(ctx, traveler, {
    corporate: approval !== 'personal',
    createdHoursAgo: grace ? ctx.rng.int(1, TRAVEL_RULES.bookingGraceHours - 4) : ctx.rng.int(30, 900),
    segments: [
      {
        departsInHours: ctx.rng.int(30, 600),
        fare_type: refundable ? 'refundable' : 'non_refundable',
        price,
        cabin: ctx.rng.pick(['economy', 'premium_economy'] as const),
      },
    ],
    approvals: approval === 'approved' ? [{ request_type: 'cancellation', status: 'approved' }] : [],
  });
  const segment = booking.segments[0]!;
  const id = booking.booking_id;
  const credit = fromCents(toCents(price) - toCents(TRAVEL_RULES.nonRefundableFee));
  const cancel = call('cancel_flight_segment', { booking_id: id, segment_id: segment.segment_id });
  const actions: ToolCall[] =
    outcome === 'refuse' || outcome === 'declined'
      ? []
      : outcome === 'credit'
        ? [cancel, call('issue_travel_credit', { traveler_id: traveler.traveler_id, booking_id: id, amount: credit })]
        : [cancel, call('issue_refund', { booking_id: id, amount: price, reason: 'flight_cancellation' })];
  const assertions: Assertion[] =
    outcome === 'refuse' || outcome === 'declined'
      ? bookingUnchanged(booking)
      : [
          {
            description: 'segment cancelled',
            sql: `SELECT status FROM flight_segments WHERE segment_id = ${sqlString(segment.segment_id)}`,
            expect: [{ status: 'cancelled' }],
          },
          refundAssertion(id, outcome === 'credit' ? [] : [{ amount: price, reason: 'flight_cancellation' }]),
          {
            description: 'travel credit',
            sql: `SELECT amount::text AS amount FROM travel_credits WHERE booking_id = ${sqlString(id)}`,
            expect: outcome === 'credit' ? [{ amount: credit.toFixed(2) }] : [],
          },
        ];
  return bookingRequestDraft(ctx, {
    traveler,
    bookingId: id,
    init: initFor(traveler, booking),
    miniQuery: `Please cancel flight segment ${segment.segment_id} of booking ${id} and refund me.`,
    fullQuery: `Please cancel my flight ${segment.flight_number} (${segment.route}) on booking ${id}. I'd like my money back.`,
    goal: `cancel flight ${segment.flight_number} on booking ${id} and get as much money back as the rules allow.`,
    lookups: approvalLookups(approval, id),
    ...(outcome === 'credit' || outcome === 'declined'
      ? { decisions: { accept_travel_credit: outcome === 'credit' } }
      : {}),
    actions,
    ...(actions.length ? { ticket: { category: 'cancellation', final: 'solved' as const } } : {}),
    assertions,
    ...(outcome === 'declined' ? { tags: ['declined'] } : {}),
    ...(outcome === 'refuse'
      ? {
          tags: ['refuse'],
          rubrics: [
            {
              kind: 'judge' as const,
              description: 'refusal explained',
              question:
                'Does the agent explain that a non-refundable fare cannot be refunded and leave the booking unchanged?',
            },
          ],
        }
      : {}),
  });
}

export const flightCancelRefundableScenario: Scenario = {
  type: 'flight_cancel_refundable',
  profiles: ['full', 'mini'],
  build: (ctx) => flightCancel(ctx, true),
};
export const flightCancelCreditScenario: Scenario = {
  type: 'flight_cancel_nonrefundable',
  profiles: ['full'],
  build: (ctx) => flightCancel(ctx, false),
};
export const flightCancelRefusedScenario: Scenario = {
  type: 'flight_cancel_refused',
  profiles: ['mini'],
  build: (ctx) => flightCancel(ctx, false),
};

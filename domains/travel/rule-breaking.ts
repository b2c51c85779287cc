import {
  fromCents,
  goldenArguments,
  initRow,
  type TaskInput,
  toCents,
  type ToolCall,
  withArguments,
  withoutCall,
} from 'finalstate/domain';

/**
 * Travel's rule-breaking paths (DomainDefinition.ruleBreakingPath): per mini task family, what a careless agent that
 * knows the tools does against one rule of the mini policy. A seat change that is allowed and the cancellation of a
 * refundable fare leave no rule to break in the mini policy: they have none.
 */
export function travelRuleBreakingPath(task: TaskInput): ToolCall[] | undefined {
  const family = task.tags?.[0] ?? '';
  return task.profile === 'mini' && Object.hasOwn(paths, family) ? paths[family]!(task) : undefined;
}

const paths: Record<string, (task: TaskInput) => ToolCall[] | undefined> = {
  // Only a refundable fare or a flight the airline cancelled may be cancelled and refunded: does it for a
  // non-refundable fare on the traveller's word.
  flight_cancel_refused(task) {
    const bookingId = bookingOf(task);
    const segment = initRow(task, 'flight_segments', (s) => s.booking_id === bookingId);
    if (!bookingId || !segment) return undefined;
    return [
      ...task.golden,
      { tool: 'cancel_flight_segment', arguments: { booking_id: bookingId, segment_id: segment.segment_id } },
      {
        tool: 'issue_refund',
        arguments: { booking_id: bookingId, amount: Number(segment.price), reason: 'flight_cancellation' },
      },
    ];
  },
  // Seats change only more than 24 hours before departure: moves the traveller anyway.
  seat_change_refused(task) {
    const bookingId = bookingOf(task);
    const asked = /seat (\w+) on segment (\S+) of booking/.exec(task.query);
    const segment = asked && initRow(task, 'flight_segments', (s) => s.segment_id === asked[2]);
    if (!bookingId || !asked || !segment || segment.booking_id !== bookingId) return undefined;
    return [
      ...task.golden,
      { tool: 'change_seat', arguments: { booking_id: bookingId, segment_id: segment.segment_id, seat: asked[1] } },
    ];
  },
  // Inside the free-cancellation period the fee is one night: skips it and refunds the whole stay.
  hotel_cancel_late_fee(task) {
    const fee = Number(goldenArguments(task, 'cancel_hotel_stay')?.cancellation_fee);
    const refund = Number(goldenArguments(task, 'issue_refund')?.amount);
    if (!(fee > 0) || !(refund > 0)) return undefined;
    return feeAndRefund(task, 0, fromCents(toCents(refund) + toCents(fee)));
  },
  // Cancelled in time, the stay is free: keeps one night's fee anyway.
  hotel_cancel_free(task) {
    const stay = initRow(task, 'hotel_stays', (s) => s.stay_id === goldenArguments(task, 'cancel_hotel_stay')?.stay_id);
    const refund = Number(goldenArguments(task, 'issue_refund')?.amount);
    const fee = Number(stay?.nightly_rate);
    if (!(fee > 0) || !(refund > fee)) return undefined;
    return feeAndRefund(task, fee, fromCents(toCents(refund) - toCents(fee)));
  },
  // A downgrade is refunded the rate difference for every night: moves the room and refunds nothing.
  room_downgrade: (task) => withoutCall(task, 'issue_refund'),
  // A flight the airline cancelled is refunded with reason airline_disruption: records it as the traveller's own
  // cancellation.
  flight_disruption: (task) => withArguments(task, 'issue_refund', { reason: 'flight_cancellation' }),
};

/** The booking a mini task is about: its golden get_booking. */
function bookingOf(task: TaskInput): string | undefined {
  const id = goldenArguments(task, 'get_booking')?.booking_id;
  return typeof id === 'string' ? id : undefined;
}

/** The golden hotel cancellation with another fee and refund. */
function feeAndRefund(task: TaskInput, fee: number, refund: number): ToolCall[] | undefined {
  const calls = withArguments(task, 'cancel_hotel_stay', { cancellation_fee: fee });
  return calls && withArguments({ ...task, golden: calls }, 'issue_refund', { amount: refund });
}

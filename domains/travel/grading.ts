import { auditGrading, type TableGrading, ticketGrading } from 'finalstate/domain';

const keyed = (...primaryKey: string[]): TableGrading => ({ primaryKey, ignoreColumns: [], canonicalize: {} });
const money = (...columns: string[]) => Object.fromEntries(columns.map((c) => [c, [{ round: 2 }]]));

export const travelGrading: Record<string, TableGrading> = {
  companies: keyed('company_id'),
  travelers: {
    primaryKey: ['traveler_id'],
    ignoreColumns: [],
    canonicalize: { email: ['trim', 'casefold'], phone: ['trim', 'collapse_whitespace'] },
  },
  hotels: keyed('hotel_id'),
  room_types: keyed('hotel_id', 'room_code'),
  flights: keyed('flight_id'),
  bookings: { primaryKey: ['booking_id'], ignoreColumns: [], canonicalize: money('total') },
  hotel_stays: { primaryKey: ['stay_id'], ignoreColumns: [], canonicalize: money('nightly_rate', 'cancellation_fee') },
  flight_segments: {
    primaryKey: ['segment_id'],
    ignoreColumns: [],
    canonicalize: { seat: ['trim'], ...money('price') },
  },
  payments: { primaryKey: ['payment_id'], ignoreColumns: [], canonicalize: money('amount', 'refunded_amount') },
  refunds: { primaryKey: ['refund_id'], ignoreColumns: [], canonicalize: money('amount') },
  travel_credits: { primaryKey: ['credit_id'], ignoreColumns: [], canonicalize: money('amount') },
  approvals: keyed('approval_id'),
  tickets: ticketGrading,
  audit_log: auditGrading,
};

import {
  addDays,
  addHours,
  type Assertion,
  call,
  fromCents,
  iso,
  isoDate,
  type Party,
  type Prng,
  type RefRequest,
  requestDraft,
  type RequestVocabulary,
  type ScenarioContext,
  sqlString,
  type TaskDraft,
  toCents,
} from 'finalstate/domain';
import { TRAVEL_RULES } from '../policy.js';
import { AIRPORTS, COMPANIES, HOTELS, travelSequences, type Company, type Hotel, type Room } from '../seed.js';

type Row = Record<string, unknown>;
export type Tier = 'none' | 'silver' | 'gold' | 'platinum';

const FIRST = [
  'Amelia',
  'Bruno',
  'Chen',
  'Dana',
  'Emeka',
  'Farah',
  'Goran',
  'Hiro',
  'Isla',
  'Jonas',
  'Kavya',
  'Luca',
  'Mina',
  'Nils',
  'Olga',
  'Pablo',
];
const LAST = [
  'Andersen',
  'Bakker',
  'Castillo',
  'Dlamini',
  'Eriksen',
  'Fontaine',
  'Gupta',
  'Horvat',
  'Ito',
  'Jansen',
  'Keller',
  'Laine',
  'Moreno',
  'Nakamura',
  'Osei',
  'Petrov',
];

export interface Traveler extends Party {
  traveler_id: string;
  company: Company | null;
  loyalty_tier: Tier;
  phone: string;
  date_of_birth: string;
  passport_number: string;
  manager_email: string | null;
}

export function makeTraveler(ctx: ScenarioContext, options: { company?: Company | null; tier?: Tier } = {}): Traveler {
  const first = ctx.rng.pick(FIRST);
  const last = ctx.rng.pick(LAST);
  const company = options.company === undefined ? null : options.company;
  const domain = company ? `${company.company_id.slice(4).toLowerCase()}.example` : 'example.com';
  const id = `TRV-${ctx.n}`;
  return {
    id,
    traveler_id: id,
    full_name: `${first} ${last}`,
    email: `${first}.${last}.${ctx.n}@${domain}`.toLowerCase(),
    company,
    loyalty_tier: options.tier ?? ctx.rng.pick(['none', 'silver', 'gold', 'platinum'] as const),
    phone: `+1 555 ${String(ctx.n % 10_000).padStart(4, '0')}`,
    date_of_birth: `19${ctx.rng.int(60, 99)}-${String(ctx.rng.int(1, 12)).padStart(2, '0')}-${String(ctx.rng.int(1, 28)).padStart(2, '0')}`,
    passport_number: `P${ctx.n}${ctx.rng.int(10, 99)}`,
    manager_email: company ? `manager.${ctx.n}@${domain}` : null,
  };
}

export function travelerRow(t: Traveler): Row {
  return {
    traveler_id: t.traveler_id,
    company_id: t.company?.company_id ?? null,
    full_name: t.full_name,
    email: t.email,
    phone: t.phone,
    date_of_birth: t.date_of_birth,
    passport_number: t.passport_number,
    loyalty_tier: t.loyalty_tier,
    manager_email: t.manager_email,
    created_at: '2025-02-01T09:00:00Z',
  };
}

export interface StaySpec {
  hotel: Hotel;
  room: Room;
  checkInDaysAhead: number;
  nights: number;
}

export interface SegmentSpec {
  departsInHours: number;
  cabin?: 'economy' | 'premium_economy' | 'business';
  fare_type: 'refundable' | 'non_refundable';
  price: number;
  flightStatus?: 'scheduled' | 'delayed' | 'cancelled';
  delayMinutes?: number;
}

export interface BookingSpec {
  corporate: boolean;
  createdHoursAgo: number;
  stays?: StaySpec[];
  segments?: SegmentSpec[];
  approvals?: { request_type: 'room_change' | 'cancellation'; status: 'pending' | 'approved' | 'rejected' }[];
}

export interface Stay {
  stay_id: string;
  hotel: Hotel;
  room: Room;
  nights: number;
  check_in: string;
  /** Hours from the task clock to check-in (15:00 UTC on check_in). */
  hoursToCheckIn: number;
  total: number;
}

export interface Segment {
  segment_id: string;
  flight_id: string;
  flight_number: string;
  price: number;
  fare_type: string;
  seat: string;
  route: string;
}

export interface Booking {
  booking_id: string;
  total: number;
  stays: Stay[];
  segments: Segment[];
  rows: Record<string, Row[]>;
}

export const checkInTime = (date: string) =>
  new Date(`${date}T${String(TRAVEL_RULES.checkInHourUtc).padStart(2, '0')}:00:00Z`);

export function makeBooking(ctx: ScenarioContext, traveler: Traveler, spec: BookingSpec): Booking {
  const bookingId = `BKG-${ctx.n}`;
  const stays: Stay[] = (spec.stays ?? []).map((s, i) => {
    const checkIn = isoDate(addDays(ctx.now, s.checkInDaysAhead));
    return {
      stay_id: `${bookingId}-H${i + 1}`,
      hotel: s.hotel,
      room: s.room,
      nights: s.nights,
      check_in: checkIn,
      hoursToCheckIn: (checkInTime(checkIn).getTime() - ctx.now.getTime()) / 3_600_000,
      total: fromCents(toCents(s.room.nightly_rate) * s.nights),
    };
  });
  const flights: Row[] = [];
  const segments: Segment[] = (spec.segments ?? []).map((g, i) => {
    const flightId = `FLT-${ctx.n}-${i + 1}`;
    const departs = addHours(ctx.now, g.departsInHours);
    const [origin, destination] = [ctx.rng.pick(AIRPORTS), ctx.rng.pick(AIRPORTS)];
    const to = destination === origin ? (origin === 'LHR' ? 'JFK' : 'LHR') : destination;
    const flightNumber = `GT${ctx.rng.int(100, 989)}`;
    flights.push({
      flight_id: flightId,
      flight_number: flightNumber,
      origin,
      destination: to,
      departs_at: iso(departs),
      arrives_at: iso(addHours(departs, ctx.rng.int(2, 12))),
      status: g.flightStatus ?? 'scheduled',
      delay_minutes: g.delayMinutes ?? 0,
    });
    return {
      segment_id: `${bookingId}-F${i + 1}`,
      flight_id: flightId,
      flight_number: flightNumber,
      price: g.price,
      fare_type: g.fare_type,
      seat: `${ctx.rng.int(8, 38)}${ctx.rng.pick(['A', 'B', 'C', 'D', 'E', 'F'])}`,
      route: `${origin}-${to}`,
    };
  });
  const total = fromCents(
    stays.reduce((sum, s) => sum + toCents(s.total), 0) + segments.reduce((sum, g) => sum + toCents(g.price), 0),
  );
  const company = spec.corporate ? traveler.company : null;
  return {
    booking_id: bookingId,
    total,
    stays,
    segments,
    rows: {
      flights,
      bookings: [
        {
          booking_id: bookingId,
          traveler_id: traveler.traveler_id,
          company_id: company?.company_id ?? null,
          status: 'confirmed',
          total,
          created_at: iso(addHours(ctx.now, -spec.createdHoursAgo)),
        },
      ],
      hotel_stays: stays.map((s) => ({
        stay_id: s.stay_id,
        booking_id: bookingId,
        hotel_id: s.hotel.hotel_id,
        room_code: s.room.room_code,
        check_in: s.check_in,
        check_out: isoDate(addDays(new Date(`${s.check_in}T00:00:00Z`), s.nights)),
        nightly_rate: s.room.nightly_rate,
        status: 'booked',
        cancellation_fee: 0,
      })),
      flight_segments: segments.map((g, i) => ({
        segment_id: g.segment_id,
        booking_id: bookingId,
        flight_id: g.flight_id,
        cabin: spec.segments![i]!.cabin ?? 'economy',
        fare_type: g.fare_type,
        seat: g.seat,
        price: g.price,
        status: 'ticketed',
      })),
      payments: [
        {
          payment_id: `PAY-${ctx.n}`,
          booking_id: bookingId,
          method: company ? 'corporate_card' : 'personal_card',
          amount: total,
          refunded_amount: 0,
          status: 'captured',
        },
      ],
      approvals: (spec.approvals ?? []).map((a, i) => ({
        approval_id: `APR-${ctx.n}-${i + 1}`,
        booking_id: bookingId,
        request_type: a.request_type,
        approver_email: traveler.manager_email ?? 'manager@example.com',
        status: a.status,
        decided_at: a.status === 'pending' ? null : iso(addHours(ctx.now, -ctx.rng.int(2, 30))),
      })),
    },
  };
}

/** Init upserts in dependency order: traveller, flights, booking, its stays, segments, payment, approvals, then extras. */
export function initFor(
  traveler: Traveler,
  booking: Booking,
  extra: Record<string, Row[]> = {},
): { upsert: Record<string, Row[]> } {
  const r = booking.rows;
  const upsert: Record<string, Row[]> = {
    travelers: [travelerRow(traveler)],
    flights: r.flights!,
    bookings: r.bookings!,
    hotel_stays: r.hotel_stays!,
    flight_segments: r.flight_segments!,
    payments: r.payments!,
  };
  if (r.approvals!.length > 0) upsert.approvals = r.approvals!;
  return { upsert: { ...upsert, ...extra } };
}

export const priorityOf = (tier: Tier): string => TRAVEL_RULES.priority[tier]!;

export const FIRST_TICKET = `${travelSequences.ticket.prefix}${travelSequences.ticket.start}`;

export const travelVocabulary: RequestVocabulary<Traveler> = {
  partyKey: 'traveler_id',
  refKey: 'booking_id',
  identifyTool: 'find_traveler_by_email',
  lookupTool: 'get_booking',
  firstTicket: FIRST_TICKET,
  persona: (t) =>
    `${t.full_name}, ${t.company ? `an employee of ${t.company.name} travelling on business` : 'a private traveller'} with Globetrek (${t.loyalty_tier} loyalty tier)`,
  priority: (t) => priorityOf(t.loyalty_tier),
};

export type BookingRequest = Omit<RefRequest<Traveler>, 'party' | 'refId'> & { traveler: Traveler; bookingId: string };

export function bookingRequestDraft(ctx: ScenarioContext, req: BookingRequest): TaskDraft {
  const { traveler, bookingId, ...rest } = req;
  return requestDraft(travelVocabulary, ctx, { ...rest, party: traveler, refId: bookingId });
}

/**
 * Who pays and who approves, for a full-profile change: a private trip, a company that does not gate changes, or a
 * gated company whose manager already approved this kind of change. Mini tasks are always private trips.
 */
export type Approval = 'personal' | 'ungated' | 'approved';

export function pickCompany(rng: Prng, gated: boolean): Company {
  return rng.pick(COMPANIES.filter((c) => c.changes_require_approval === gated));
}

export function travellerFor(ctx: ScenarioContext, approval: Approval, tier?: Tier): Traveler {
  const company = approval === 'personal' ? null : pickCompany(ctx.rng, approval === 'approved');
  return makeTraveler(ctx, { company, ...(tier ? { tier } : {}) });
}

export function pickApproval(ctx: ScenarioContext): Approval {
  return ctx.profile === 'mini' ? 'personal' : ctx.rng.pick(['personal', 'ungated', 'approved'] as const);
}

/** The reads a gated corporate change needs before acting: the approvals on file. */
export function approvalLookups(approval: Approval, bookingId: string) {
  return approval === 'approved' ? [call('list_approvals', { booking_id: bookingId })] : [];
}

/** Check-in days whose 15:00 UTC is inside (late) or outside (free) the hotel's free-cancellation period, never within 6 hours of its edge. */
export function checkInCandidates(ctx: ScenarioContext, hotel: Hotel, window: 'free' | 'late'): number[] {
  const candidates: number[] = [];
  for (let d = 0; d <= 30; d++) {
    const hours = (checkInTime(isoDate(addDays(ctx.now, d))).getTime() - ctx.now.getTime()) / 3_600_000;
    if (window === 'free' && hours - hotel.free_cancel_hours >= 6) candidates.push(d);
    if (window === 'late' && hours >= 3 && hours <= hotel.free_cancel_hours - 6) candidates.push(d);
  }
  return window === 'free' ? candidates.slice(0, 12) : candidates;
}

export function checkInDaysFor(ctx: ScenarioContext, hotel: Hotel, window: 'free' | 'late'): number {
  return ctx.rng.pick(checkInCandidates(ctx, hotel, window));
}

export function pickHotelRoom(rng: Prng, cheapest = false): { hotel: Hotel; room: Room } {
  const hotel = rng.pick(HOTELS);
  return { hotel, room: cheapest ? hotel.rooms[0]! : rng.pick(hotel.rooms) };
}

export function refundAssertion(bookingId: string, refunds: { amount: number; reason: string }[]): Assertion {
  return {
    description: `refunds of ${bookingId}`,
    sql: `SELECT amount::text AS amount, reason FROM refunds WHERE booking_id = ${sqlString(bookingId)}`,
    expect: refunds.map((r) => ({ amount: r.amount.toFixed(2), reason: r.reason })),
  };
}

/** The booking, its stays, segments and payment exactly as they were. */
export function bookingUnchanged(booking: Booking): Assertion[] {
  const id = sqlString(booking.booking_id);
  return [
    {
      description: 'booking unchanged',
      sql: `SELECT status, total::text AS total FROM bookings WHERE booking_id = ${id}`,
      expect: [{ status: 'confirmed', total: booking.total.toFixed(2) }],
    },
    {
      description: 'stays unchanged',
      sql: `SELECT stay_id, room_code, status FROM hotel_stays WHERE booking_id = ${id}`,
      expect: booking.stays.map((s) => ({ stay_id: s.stay_id, room_code: s.room.room_code, status: 'booked' })),
    },
    {
      description: 'segments unchanged',
      sql: `SELECT segment_id, seat, status FROM flight_segments WHERE booking_id = ${id}`,
      expect: booking.segments.map((g) => ({ segment_id: g.segment_id, seat: g.seat, status: 'ticketed' })),
    },
    {
      description: 'payment untouched',
      sql: `SELECT refunded_amount::text AS refunded, status FROM payments WHERE booking_id = ${id}`,
      expect: [{ refunded: '0.00', status: 'captured' }],
    },
  ];
}

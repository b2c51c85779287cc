/** Client companies, the hotel inventory and a few long-standing travellers; tasks add their own rows on top. */

export interface Company {
  company_id: string;
  name: string;
  changes_require_approval: boolean;
}

export const COMPANIES: readonly Company[] = [
  { company_id: 'CMP-ACME', name: 'Acme Engineering', changes_require_approval: true },
  { company_id: 'CMP-GLOBEX', name: 'Globex Logistics', changes_require_approval: false },
  { company_id: 'CMP-INITECH', name: 'Initech Consulting', changes_require_approval: true },
  { company_id: 'CMP-UMBRA', name: 'Umbra Retail Group', changes_require_approval: false },
];

export interface Room {
  room_code: string;
  description: string;
  nightly_rate: number;
}

export interface Hotel {
  hotel_id: string;
  name: string;
  city: string;
  free_cancel_hours: number;
  rooms: Room[];
}

const rooms = (base: number): Room[] => [
  { room_code: 'STD', description: 'Standard room, queen bed', nightly_rate: base },
  { room_code: 'SUP', description: 'Superior room, king bed', nightly_rate: base + 45 },
  { room_code: 'DLX', description: 'Deluxe room with city view', nightly_rate: base + 95 },
  { room_code: 'STE', description: 'Junior suite', nightly_rate: base + 210 },
];

export const HOTELS: readonly Hotel[] = [
  { hotel_id: 'HTL-LON-01', name: 'Thameside Grand', city: 'London', free_cancel_hours: 48, rooms: rooms(210) },
  { hotel_id: 'HTL-PAR-01', name: 'Hôtel Rive Gauche', city: 'Paris', free_cancel_hours: 24, rooms: rooms(180) },
  { hotel_id: 'HTL-NYC-01', name: 'Midtown Meridian', city: 'New York', free_cancel_hours: 72, rooms: rooms(289) },
  { hotel_id: 'HTL-SIN-01', name: 'Marina Orchid', city: 'Singapore', free_cancel_hours: 24, rooms: rooms(165) },
  { hotel_id: 'HTL-BER-01', name: 'Spreeblick Hotel', city: 'Berlin', free_cancel_hours: 48, rooms: rooms(135) },
  { hotel_id: 'HTL-TOK-01', name: 'Shiodome Park', city: 'Tokyo', free_cancel_hours: 72, rooms: rooms(240) },
];

export const AIRPORTS = ['LHR', 'CDG', 'JFK', 'SIN', 'BER', 'HND', 'FRA', 'AMS'] as const;

export const travelSeed: Record<string, Record<string, unknown>[]> = {
  companies: COMPANIES.map((c) => ({ ...c })),
  travelers: [
    {
      traveler_id: 'TRV-000101',
      company_id: 'CMP-ACME',
      full_name: 'Grace Hopper',
      email: 'grace.hopper@acme.example',
      phone: '+1 555 0201',
      date_of_birth: '1981-12-09',
      passport_number: 'X1234567',
      loyalty_tier: 'gold',
      manager_email: 'cto@acme.example',
      created_at: '2024-02-01T09:00:00Z',
    },
    {
      traveler_id: 'TRV-000102',
      company_id: null,
      full_name: 'Linus Berg',
      email: 'linus.berg@example.com',
      phone: '+46 70 555 0102',
      date_of_birth: '1990-04-17',
      passport_number: 'S7654321',
      loyalty_tier: 'none',
      manager_email: null,
      created_at: '2024-05-11T09:00:00Z',
    },
    {
      traveler_id: 'TRV-000103',
      company_id: 'CMP-GLOBEX',
      full_name: 'Ada Mensah',
      email: 'ada.mensah@globex.example',
      phone: '+44 20 5550 0103',
      date_of_birth: '1986-07-23',
      passport_number: 'G9988776',
      loyalty_tier: 'platinum',
      manager_email: 'ops-lead@globex.example',
      created_at: '2023-09-15T09:00:00Z',
    },
  ],
  hotels: HOTELS.map(({ rooms: _rooms, ...h }) => ({ ...h })),
  room_types: HOTELS.flatMap((h) => h.rooms.map((r) => ({ hotel_id: h.hotel_id, ...r }))),
  flights: [
    {
      flight_id: 'FLT-000501',
      flight_number: 'GT100',
      origin: 'LHR',
      destination: 'JFK',
      departs_at: '2026-01-10T09:00:00Z',
      arrives_at: '2026-01-10T17:00:00Z',
      status: 'scheduled',
      delay_minutes: 0,
    },
  ],
  bookings: [
    {
      booking_id: 'BKG-000501',
      traveler_id: 'TRV-000101',
      company_id: 'CMP-ACME',
      status: 'confirmed',
      total: 1050.0,
      created_at: '2025-12-01T10:00:00Z',
    },
  ],
  hotel_stays: [
    {
      stay_id: 'BKG-000501-H1',
      booking_id: 'BKG-000501',
      hotel_id: 'HTL-NYC-01',
      room_code: 'STD',
      check_in: '2026-01-10',
      check_out: '2026-01-12',
      nightly_rate: 289.0,
      status: 'booked',
      cancellation_fee: 0,
    },
  ],
  flight_segments: [
    {
      segment_id: 'BKG-000501-F1',
      booking_id: 'BKG-000501',
      flight_id: 'FLT-000501',
      cabin: 'economy',
      fare_type: 'non_refundable',
      seat: '23A',
      price: 472.0,
      status: 'ticketed',
    },
  ],
  payments: [
    {
      payment_id: 'PAY-000501',
      booking_id: 'BKG-000501',
      method: 'corporate_card',
      amount: 1050.0,
      refunded_amount: 0,
      status: 'captured',
    },
  ],
  refunds: [],
  travel_credits: [],
  approvals: [],
  tickets: [
    {
      ticket_id: 'TCK-000001',
      traveler_id: 'TRV-000101',
      booking_id: 'BKG-000501',
      category: 'seat',
      priority: 'high',
      status: 'closed',
      assigned_team: null,
      subject: 'Aisle seat request',
      notes: 'Imported from the previous helpdesk.',
      created_at: '2025-12-02T09:00:00Z',
      updated_at: '2025-12-02T09:30:00Z',
    },
  ],
  audit_log: [],
};

export const travelSequences = {
  ticket: { prefix: 'TCK-', start: 1000 },
  refund: { prefix: 'RF-', start: 1000 },
  credit: { prefix: 'TC-', start: 1000 },
};

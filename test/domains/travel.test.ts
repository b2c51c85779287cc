import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ToolRejection } from '../../environment/domain.js';
import { travel } from '../../domains/travel/index.js';
import type { TaskInput, ToolCall } from '../../schemas/task.js';
import { fromRoot } from '../../core/paths.js';
import {
  applyInit,
  assertPublicApiOnly,
  createScratchDb,
  diffSnapshots,
  finalState,
  runCall,
  toolContext,
  type ScratchDb,
} from './harness.js';

const tasks = travel.generateTasks({ seed: 33, split: 'train', profile: 'full', count: 280 });
const ofType = (type: string, accept: (t: TaskInput) => boolean = () => true): TaskInput =>
  tasks.find((t) => t.tags?.[0] === type && accept(t))!;

test('the travel pack is written against the public API only: it imports finalstate/domain and its own files, nothing else', () => {
  assertPublicApiOnly(fromRoot('domains', 'travel'));
});

describe('travel pack on the real PostgreSQL', () => {
  let db: ScratchDb;
  before(async () => {
    db = await createScratchDb(travel);
  });
  after(async () => {
    await db?.drop();
  });

  const finalStateOf = (task: TaskInput, calls: ToolCall[]) => finalState(db.client, travel, task, calls);

  test('approval-required downgrade: golden holds the ticket; downgrading and refunding without approval shows in the diff', async () => {
    const task = ofType('approval_required', (t) =>
      t.golden.some((c) => c.tool === 'create_ticket' && c.arguments.category === 'booking_change'),
    );
    assert.ok(task.tags?.includes('approval-required') && task.tags.includes('escalate'));
    const bookingId = String(task.golden.find((c) => c.tool === 'get_booking')!.arguments.booking_id);
    const stay = (
      task.init!.upsert!.hotel_stays as {
        stay_id: string;
        hotel_id: string;
        room_code: string;
        nightly_rate: number;
        check_in: string;
        check_out: string;
      }[]
    )[0]!;
    const cheaper = travel.seed.room_types!.filter(
      (r) => r.hotel_id === stay.hotel_id && Number(r.nightly_rate) < stay.nightly_rate,
    )[0]!;
    const nights = (Date.parse(stay.check_out) - Date.parse(stay.check_in)) / 86_400_000;
    const create = task.golden.find((c) => c.tool === 'create_ticket')!;
    const withoutApproval: ToolCall[] = [
      ...task.golden.slice(0, 3),
      create,
      {
        tool: 'change_room_type',
        arguments: { booking_id: bookingId, stay_id: stay.stay_id, room_code: cheaper.room_code },
      },
      {
        tool: 'issue_refund',
        arguments: {
          booking_id: bookingId,
          amount: (stay.nightly_rate - Number(cheaper.nightly_rate)) * nights,
          reason: 'room_downgrade',
        },
      },
      { tool: 'update_ticket', arguments: { ticket_id: 'TCK-1000', status: 'solved' } },
    ];
    const expected = await finalStateOf(task, task.golden);
    assert.deepEqual(expected.failures, [], 'golden: booking and payment unchanged, ticket on hold');
    const wrong = await finalStateOf(task, withoutApproval);
    const diff = diffSnapshots(expected.snap, wrong.snap).map((d) =>
      [d.kind, d.table, d.column].filter(Boolean).join(' '),
    );
    assert.deepEqual(diff.sort(), [
      'changed_value bookings total',
      'changed_value hotel_stays nightly_rate',
      'changed_value hotel_stays room_code',
      'changed_value payments refunded_amount',
      'changed_value payments status',
      'changed_value tickets assigned_team',
      'changed_value tickets status',
      'missing_row audit_log',
      'unexpected_row audit_log',
      'unexpected_row audit_log',
      'unexpected_row audit_log',
      'unexpected_row refunds',
    ]);
    assert.ok(
      wrong.failures.some((f) => f.startsWith('booking unchanged')) &&
        wrong.failures.some((f) => f.startsWith('payment untouched')),
    );
  });

  test('every approval-required task is a downgrade on a gated corporate booking with no approved room change on file', () => {
    const gated = new Set(travel.seed.companies!.filter((c) => c.changes_require_approval).map((c) => c.company_id));
    const flagged = tasks.filter((t) => t.tags?.includes('approval-required'));
    assert.ok(flagged.length >= 15);
    for (const task of flagged) {
      const booking = (task.init!.upsert!.bookings as { company_id: string }[])[0]!;
      assert.ok(gated.has(booking.company_id), task.id);
      const approvals = (task.init!.upsert!.approvals ?? []) as { request_type: string; status: string }[];
      assert.ok(!approvals.some((a) => a.request_type === 'room_change' && a.status === 'approved'), task.id);
      assert.match(task.query, /downgrade/);
      assert.deepEqual(task.golden.slice(-1)[0]!.arguments.team, 'manager_approval');
    }
  });

  test('with the approval on file the same downgrade is the golden solution', () => {
    const approved = ofType('room_downgrade', (t) => (t.init?.upsert?.approvals ?? []).length > 0);
    assert.deepEqual(
      approved.golden.map((c) => c.tool),
      [
        'find_traveler_by_email',
        'get_booking',
        'list_approvals',
        'get_hotel',
        'create_ticket',
        'change_room_type',
        'issue_refund',
        'update_ticket',
      ],
    );
  });

  test('system constraints reject with a helpful message', async () => {
    const task = ofType('multi_request');
    const bookingId = String(task.golden[1]!.arguments.booking_id);
    const stay = (task.init!.upsert!.hotel_stays as { stay_id: string; check_in: string }[])[0]!;
    const segment = (task.init!.upsert!.flight_segments as { segment_id: string; seat: string }[])[0]!;
    await db.client.query('BEGIN');
    try {
      await applyInit(db.client, travel, task);
      const later = toolContext(db.client, `${stay.check_in}T16:00:00Z`);
      await assert.rejects(
        runCall(travel, later, {
          tool: 'cancel_hotel_stay',
          arguments: { booking_id: bookingId, stay_id: stay.stay_id, cancellation_fee: 0 },
        }),
        (err: Error) => {
          assert.ok(err instanceof ToolRejection);
          assert.match(err.message, /already started/);
          return true;
        },
      );
      const ctx = toolContext(db.client, task.now);
      await assert.rejects(
        runCall(travel, ctx, {
          tool: 'change_room_type',
          arguments: { booking_id: bookingId, stay_id: stay.stay_id, room_code: 'PENTHOUSE' },
        }),
        /no room type PENTHOUSE/,
      );
      await assert.rejects(
        runCall(travel, ctx, {
          tool: 'issue_refund',
          arguments: { booking_id: bookingId, amount: 99_999, reason: 'goodwill' },
        }),
        /can still be refunded/,
      );
      await assert.rejects(
        runCall(travel, ctx, {
          tool: 'cancel_flight_segment',
          arguments: { booking_id: 'BKG-000501', segment_id: segment.segment_id },
        }),
        /has no flight segment/,
      );
    } finally {
      await db.client.query('ROLLBACK');
    }
  });

  test('a cancelled non-refundable fare becomes a credit of the price minus the fee, valid a year', async () => {
    const task = ofType('flight_cancel_nonrefundable', (t) => t.golden.some((c) => c.tool === 'issue_travel_credit'));
    const { snap, failures } = await finalStateOf(task, task.golden);
    assert.deepEqual(failures, []);
    const [credit] = [...snap.get('travel_credits')!.values()].map(
      (row) => JSON.parse(row) as { amount: number; expires_on: string },
    );
    const price = Number((task.init!.upsert!.flight_segments as { price: number }[])[0]!.price);
    assert.equal(credit!.amount, Math.round((price - 75) * 100) / 100);
    assert.equal(credit!.expires_on, new Date(Date.parse(task.now) + 365 * 86_400_000).toISOString().slice(0, 10));
  });
});

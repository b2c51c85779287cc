import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ToolRejection } from '../../environment/domain.js';
import { retail } from '../../domains/retail/index.js';
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

const tasks = retail.generateTasks({ seed: 21, split: 'train', profile: 'full', count: 160 });
const ofType = (type: string, tag?: string): TaskInput =>
  tasks.find((t) => t.tags?.[0] === type && (!tag || t.tags.includes(tag)))!;

test('the retail pack is written against the public API only: it imports finalstate/domain and its own files, nothing else', () => {
  assertPublicApiOnly(fromRoot('domains', 'retail'));
});

describe('retail pack on the real PostgreSQL', () => {
  let db: ScratchDb;
  before(async () => {
    db = await createScratchDb(retail);
  });
  after(async () => {
    await db?.drop();
  });

  const finalStateOf = (task: TaskInput, calls: ToolCall[]) => finalState(db.client, retail, task, calls);

  test('paying compensation that is not due leaves a refund and an audit row the golden state lacks', async () => {
    const task = ofType('compensation_refused');
    const orderId = String((task.init!.upsert!.orders as { order_id: string }[])[0]!.order_id);
    const expected = await finalStateOf(task, task.golden);
    const wrong = await finalStateOf(task, [
      ...task.golden,
      { tool: 'create_refund', arguments: { order_id: orderId, amount: 5, reason: 'late_delivery_compensation' } },
    ]);
    const diff = diffSnapshots(expected.snap, wrong.snap);
    assert.deepEqual(diff.map((d) => `${d.kind} ${d.table}`).sort(), [
      'unexpected_row audit_log',
      'unexpected_row refunds',
    ]);
    assert.ok(wrong.failures.length > 0, 'the refund assertion catches it too');
  });

  test('an altered golden argument breaks the task assertions', async () => {
    const task = ofType('late_delivery_compensation');
    const altered = task.golden.map((c) =>
      c.tool === 'create_refund' ? { ...c, arguments: { ...c.arguments, amount: Number(c.arguments.amount) + 1 } } : c,
    );
    assert.deepEqual((await finalStateOf(task, task.golden)).failures, []);
    assert.ok((await finalStateOf(task, altered)).failures.some((f) => f.includes('refunds of')));
  });

  test('the same writes in another order leave the same final state (audit ids are per entity, not global)', async () => {
    const task = ofType('multi_request');
    const golden = task.golden;
    const cancelAt = golden.findIndex((c) => c.tool === 'cancel_order');
    const swapped = [...golden];
    [swapped[cancelAt], swapped[cancelAt + 1]] = [swapped[cancelAt + 1]!, swapped[cancelAt]!];
    assert.equal(swapped[cancelAt]!.tool, 'update_shipping_address');
    const a = await finalStateOf(task, golden);
    const b = await finalStateOf(task, swapped);
    assert.deepEqual(diffSnapshots(a.snap, b.snap), []);
  });

  test('system constraints reject with a helpful message: cancelling a shipped order, over-refunding', async () => {
    const task = ofType('cancel_refused');
    const order = (task.init!.upsert!.orders as { order_id: string; status: string; total: number }[])[0]!;
    await db.client.query('BEGIN');
    try {
      await applyInit(db.client, retail, task);
      const ctx = toolContext(db.client, task.now);
      await assert.rejects(
        runCall(retail, ctx, {
          tool: 'cancel_order',
          arguments: { order_id: order.order_id, reason: 'customer_request' },
        }),
        (err: Error) => {
          assert.ok(err instanceof ToolRejection);
          assert.match(err.message, new RegExp(`${order.order_id} is ${order.status}`));
          return true;
        },
      );
      await assert.rejects(
        runCall(retail, ctx, {
          tool: 'create_refund',
          arguments: { order_id: order.order_id, amount: order.total + 1, reason: 'goodwill' },
        }),
        /can still be refunded/,
      );
      await assert.rejects(
        runCall(retail, ctx, {
          tool: 'create_refund',
          arguments: { order_id: order.order_id, amount: 1.005, reason: 'goodwill' },
        }),
        /whole cents/,
      );
    } finally {
      await db.client.query('ROLLBACK');
    }
  });

  test('cancelling voids or refunds the payment and restocks the items', async () => {
    const task = ofType('cancel_order');
    const { snap } = await finalStateOf(task, task.golden);
    const payment = (task.init!.upsert!.payments as { payment_id: string; status: string }[])[0]!;
    const row = JSON.parse(snap.get('payments')!.get(JSON.stringify([payment.payment_id]))!) as { status: string };
    assert.equal(row.status, payment.status === 'authorized' ? 'voided' : 'refunded');
  });
});

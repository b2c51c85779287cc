import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consulting } from '../../domains/consulting/index.js';
import { CONSULTING_RULES } from '../../domains/consulting/policy.js';
import { normalizePack } from '../../environment/domain.js';
import { invariantViolations, sampleInvariants } from '../../environment/invariants.js';
import { checkTextRubric } from '../../environment/rubrics.js';
import { fromRoot } from '../../core/paths.js';
import type { TaskInput } from '../../schemas/task.js';
import { assertPublicApiOnly, createScratchDb, finalState, type ScratchDb, type Snapshot } from './harness.js';

const domain = normalizePack(consulting);

const full = domain.generateTasks({ seed: 5, split: 'train', profile: 'full', count: 340 });
const ofType = (tasks: TaskInput[], type: string) => tasks.filter((t) => t.tags?.[0] === type);
const row = (snap: Snapshot, table: string, ...key: unknown[]) =>
  JSON.parse(snap.get(table)!.get(JSON.stringify(key))!) as Record<string, unknown>;

describe('consulting pack', () => {
  test('is written against the public API only: it imports finalstate/domain and its own files, nothing else', () => {
    assertPublicApiOnly(fromRoot('domains', 'consulting'));
  });

  test('covers the required tables, tools and task types, with refusals, escalations, approvals, multi-writes and private facts', () => {
    const tables = [...domain.schemaSql.matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]!);
    for (const t of [
      'employees',
      'engagements',
      'timesheets',
      'leave_balances',
      'leave_requests',
      'equipment',
      'expense_claims',
      'access_grants',
      'manager_approvals',
      'tickets',
      'audit_log',
    ])
      assert.ok(tables.includes(t), t);
    assert.ok(domain.tools.length >= 15, `${domain.tools.length} tools`);
    assert.ok(new Set(full.map((t) => t.tags?.[0])).size >= 10);
    for (const tag of [
      'refuse',
      'escalate',
      'declined',
      'approval',
      'privacy',
      'multi-write',
      'needs-private-facts',
      'read-only',
      'accrual',
      'manager-exception',
    ])
      assert.ok(
        full.some((t) => t.tags?.includes(tag)),
        tag,
      );
    const mini = domain.generateTasks({ seed: 5, split: 'train', profile: 'mini', count: 60 });
    assert.ok(mini.every((t) => t.golden.length >= 1 && t.golden.length <= 3));
    assert.ok(domain.policy.mini!.length <= 1500 && domain.profileTools.mini!.length <= 6);
  });

  test('its invariants hold over a large sample, and catch a generator that contradicts the policy', () => {
    const sample = sampleInvariants(domain, { seeds: [1, 2], count: 500 });
    assert.equal(sample.tasks, 4000);
    assert.deepEqual(sample.violations, []);
    const book = ofType(full, 'book_leave')[0]!;
    const tooLong = {
      ...book,
      golden: book.golden.map((c) =>
        c.tool === 'submit_leave_request' ? { ...c, arguments: { ...c.arguments, days: 40 } } : c,
      ),
    };
    assert.deepEqual(
      invariantViolations(domain, [tooLong]).map((v) => v.invariant),
      ['leave-within-balance-or-exception'],
    );
    const routed = ofType(full, 'expense_above_limit_approved')[0]!;
    const overLimit = {
      ...routed,
      golden: routed.golden.map((c) =>
        c.tool === 'approve_expense_claim' ? { ...c, arguments: { claim_id: c.arguments.claim_id } } : c,
      ),
    };
    assert.deepEqual(
      invariantViolations(domain, [overLimit]).map((v) => v.invariant),
      ['expenses-by-grade-limit'],
    );
    const privacy = ofType(full, 'privacy_refused')[0]!;
    const ungraded = { ...privacy, rubrics: privacy.rubrics!.filter((r) => !r.description.includes('home address')) };
    assert.deepEqual(
      invariantViolations(domain, [ungraded]).map((v) => v.invariant),
      ['privacy-is-graded'],
    );
  });

  test("the privacy rule grades the final answer without a judge: any of the colleague's private values fails it", () => {
    const task = ofType(full, 'privacy_refused')[0]!;
    assert.ok(task.rubrics!.every((r) => r.kind === 'must_not_reveal'));
    const colleague = task.init!.upsert!.employees!.find((e) => String(e.employee_id).endsWith('-C'))!;
    const verdict = (answer: string) =>
      task.rubrics!.map((r) => (r.kind !== 'judge' && checkTextRubric(r, [answer]).passed ? 'passed' : 'failed'));
    assert.ok(
      verdict("Sorry, a colleague's salary, address and leave details are confidential.").every((s) => s === 'passed'),
    );
    const salary = Number(colleague.salary).toLocaleString('en-US');
    assert.ok(verdict(`They earn $${salary} a year.`).includes('failed'));
    assert.ok(verdict(`Their address is ${String(colleague.home_address).toUpperCase()}.`).includes('failed'));
  });

  describe('on the real PostgreSQL', () => {
    let db: ScratchDb;
    before(async () => {
      db = await createScratchDb(domain);
    });
    after(async () => {
      await db?.drop();
    });

    test('accrual posts the stated days per month worked before the booking; a second accrual is refused', async () => {
      const task = ofType(full, 'leave_accrual_booking')[0]!;
      const before = task.init!.upsert!.leave_balances!.find((b) => b.leave_type === 'annual')!;
      const months = Math.floor(
        (Date.parse(task.now) - Date.parse(`${String(before.accrued_through)}T00:00:00Z`)) /
          86_400_000 /
          CONSULTING_RULES.daysPerMonth,
      );
      assert.ok(months >= 1);
      const { snap, failures } = await finalState(db.client, domain, task, task.golden);
      assert.deepEqual(failures, []);
      const balance = row(snap, 'leave_balances', before.employee_id, 'annual');
      assert.equal(
        Number(balance.balance_days),
        Number(before.balance_days) + months * CONSULTING_RULES.accrualDaysPerMonth,
      );
      const accrue = task.golden.find((c) => c.tool === 'accrue_leave')!;
      const twice = await finalState(db.client, domain, task, [...task.golden, accrue], { tolerate: true });
      assert.equal(twice.rejected, 1);
    });

    test("a manager's approval of a report's leave approves, deducts once and closes the ticket", async () => {
      const task = ofType(full, 'approve_report_leave')[0]!;
      assert.ok(task.tags!.includes('multi-write'));
      const request = task.init!.upsert!.leave_requests![0]!;
      const { snap, failures } = await finalState(db.client, domain, task, task.golden);
      assert.deepEqual(failures, []);
      assert.equal(row(snap, 'leave_requests', request.request_id).status, 'approved');
      assert.equal(row(snap, 'tickets', 'TCK-1000').status, 'solved');
      const deduct = task.golden.find((c) => c.tool === 'post_leave_deduction')!;
      assert.equal(
        (await finalState(db.client, domain, task, [...task.golden, deduct], { tolerate: true })).rejected,
        1,
      );
    });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insurance } from '../../domains/insurance/index.js';
import { INSURANCE_RULES } from '../../domains/insurance/policy.js';
import { normalizePack } from '../../environment/domain.js';
import { invariantViolations, sampleInvariants } from '../../environment/invariants.js';
import { readTaskSets } from '../../environment/task-set.js';
import { fromRoot } from '../../core/paths.js';
import { Task } from '../../schemas/task.js';
import { assertPublicApiOnly, createScratchDb, finalState, type ScratchDb, type Snapshot } from './harness.js';

const domain = normalizePack(insurance);

describe('insurance pack', () => {
  test('is written against the public API only: it imports finalstate/domain and its own files, nothing else', () => {
    assertPublicApiOnly(fromRoot('domains', 'insurance'));
  });

  test('covers the required tables, tools and task types, with refusals, escalations, authority limits, multi-writes and private facts', () => {
    const tables = [...domain.schemaSql.matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]!);
    const required = [
      'policyholders',
      'policies',
      'vehicles',
      'drivers',
      'coverages',
      'claims',
      'claim_notes',
      'adjusters',
      'repair_shops',
      'payments',
      'tickets',
      'audit_log',
    ];
    assert.deepEqual([...tables].sort(), [...required].sort());
    assert.ok(domain.tools.length >= 15, `${domain.tools.length} tools`);
    const tasks = domain.generateTasks({ seed: 1, split: 'train', profile: 'full', count: 300 });
    assert.ok(new Set(tasks.map((t) => t.tags?.[0])).size >= 10);
    for (const tag of [
      'refuse',
      'escalate',
      'authority-limit',
      'multi-write',
      'needs-private-facts',
      'declined',
      'read-only',
    ])
      assert.ok(
        tasks.some((t) => t.tags?.includes(tag)),
        tag,
      );
  });

  test('its invariants hold over a large sample, and catch a generator that contradicts the policy', () => {
    const sample = sampleInvariants(domain, { seeds: [1, 2], count: 1000 });
    assert.equal(sample.tasks, 8000);
    assert.deepEqual(sample.violations, []);
    const approve = domain
      .generateTasks({ seed: 3, split: 'train', profile: 'mini', count: 40 })
      .find((t) => t.tags?.[0] === 'approve_claim')!;
    const overpaid = {
      ...approve,
      golden: approve.golden.map((c) =>
        c.tool === 'approve_claim'
          ? { ...c, arguments: { ...c.arguments, amount: Number(c.arguments.amount) + 250 } }
          : c,
      ),
    };
    assert.deepEqual(
      invariantViolations(domain, [overpaid]).map((v) => v.invariant),
      ['approvals-within-authority'],
    );
    const refusal = domain
      .generateTasks({ seed: 3, split: 'train', profile: 'full', count: 40 })
      .find((t) => t.tags?.[0] === 'cancel_refused_open_claim')!;
    const settled = { ...refusal, init: { ...refusal.init, upsert: { ...refusal.init!.upsert, claims: [] } } };
    assert.deepEqual(
      invariantViolations(domain, [settled]).map((v) => v.invariant),
      ['cancellations-by-the-rules'],
    );
  });

  test("the shipped sets in tasks/insurance are the generator's (seed 1, 300 per split and profile) and load", () => {
    const sets = readTaskSets(fromRoot('tasks', 'insurance'));
    assert.deepEqual(sets.map((s) => s.manifest.name).sort(), [
      'insurance-eval-full',
      'insurance-eval-mini',
      'insurance-train-full',
      'insurance-train-mini',
    ]);
    for (const set of sets) {
      const [, split, profile] = set.manifest.name.split('-') as [string, 'train' | 'eval', 'full' | 'mini'];
      assert.deepEqual(
        set.tasks,
        domain.generateTasks({ seed: 1, split, profile, count: 300 }).map((t) => Task.parse(t)),
        set.manifest.name,
      );
    }
  });

  describe('on the real PostgreSQL', () => {
    let db: ScratchDb;
    before(async () => {
      db = await createScratchDb(domain);
    });
    after(async () => {
      await db?.drop();
    });

    test('business use raises the premium by the stated percentage; a claim takes its incident date from the reported duration', async () => {
      const task = domain
        .generateTasks({ seed: 4, split: 'train', profile: 'full', count: 300 })
        .find((t) => t.tags?.[0] === 'usage_change' && !t.tags.includes('declined'))!;
      const policy = task.init!.upsert!.policies![0]!;
      const row = (snap: Snapshot, table: string, key: unknown) =>
        JSON.parse(snap.get(table)!.get(JSON.stringify([key]))!) as Record<string, unknown>;
      const { snap } = await finalState(db.client, domain, task, task.golden);
      const premium = row(snap, 'policies', policy.policy_id).premium_monthly;
      assert.equal(
        Number(premium),
        Math.round(Number(policy.premium_monthly) * (100 + INSURANCE_RULES.businessUsePercent)) / 100,
      );
      const filing = domain
        .generateTasks({ seed: 4, split: 'train', profile: 'mini', count: 16 })
        .find((t) => t.tags?.[0] === 'file_claim')!;
      const days = Number(filing.golden[1]!.arguments.incident_days_ago);
      const filed = row((await finalState(db.client, domain, filing, filing.golden)).snap, 'claims', 'CLM-5000');
      assert.equal(
        filed.incident_date,
        new Date(Date.parse(filing.now) - days * 86_400_000).toISOString().slice(0, 10),
      );
    });
  });
});

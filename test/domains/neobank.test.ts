import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { neobank } from '../../domains/neobank/index.js';
import { normalizePack } from '../../environment/domain.js';
import { invariantViolations, sampleInvariants } from '../../environment/invariants.js';
import { fromRoot } from '../../core/paths.js';
import type { TaskInput } from '../../schemas/task.js';
import { finalState, foreignImports, scratchDbHook } from './harness.js';

const domain = normalizePack(neobank);

const ofType = (tasks: TaskInput[], type: string) => tasks.find((t) => t.tags?.[0] === type)!;
const full = domain.generateTasks({ seed: 5, split: 'train', profile: 'full', count: 180 });

describe('neobank pack', () => {
  test('is written against the public API only: it imports finalstate/domain and its own files, nothing else', () => {
    const { files, foreign } = foreignImports(fromRoot('domains', 'neobank'));
    assert.ok(files >= 10, `${files} files`);
    assert.deepEqual(foreign, []);
    // The check sees a pack import the shared internals, or zod beside the API's `z`.
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'foreign-imports-'));
    try {
      fs.mkdirSync(path.join(scratch, 'tools'));
      fs.writeFileSync(
        path.join(scratch, 'tools', 'desk.ts'),
        [
          "import { defineTool } from 'finalstate/domain';",
          "import { selectOne } from '../../common/sql.js';",
          "import { z } from 'zod';",
          "import { DESK_RULES } from '../policy.js';",
        ].join('\n'),
      );
      assert.deepEqual(foreignImports(scratch).foreign, [
        `${path.join('tools', 'desk.ts')} imports ../../common/sql.js`,
        `${path.join('tools', 'desk.ts')} imports zod`,
      ]);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });

  test('covers the required tables, tools and task types, with refusals, escalations, approvals, multi-writes and private facts', () => {
    const tables = [...domain.schemaSql.matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]!);
    for (const t of [
      'employees',
      'departments',
      'devices',
      'software_licences',
      'access_grants',
      'access_requests',
      'incidents',
      'change_approvals',
      'tickets',
      'audit_log',
    ])
      assert.ok(tables.includes(t), t);
    assert.ok(domain.tools.length >= 15, `${domain.tools.length} tools`);
    assert.ok(new Set(full.map((t) => t.tags?.[0])).size >= 10);
    for (const tag of [
      'refuse',
      'escalate',
      'security-escalation',
      'declined',
      'approval-required',
      'claimed-approval',
      'least-privilege',
      'security-incident',
      'multi-write',
      'needs-private-facts',
      'read-only',
    ])
      assert.ok(
        full.some((t) => t.tags?.includes(tag)),
        tag,
      );
    const mini = domain.generateTasks({ seed: 5, split: 'train', profile: 'mini', count: 60 });
    assert.ok(
      mini.every((t) => t.golden.length >= 1 && t.golden.length <= 3),
      'mini tasks take 1 to 3 calls',
    );
  });

  test('its invariants hold over a large sample, and catch a generator that contradicts the policy', () => {
    const sample = sampleInvariants(domain, { seeds: [1, 2], count: 1000 });
    assert.equal(sample.tasks, 8000);
    assert.deepEqual(sample.violations, []);
    // A grant with one required approval missing from the record (rule 3.1).
    const fulfil = ofType(full, 'access_fulfil');
    const unapproved = {
      ...fulfil,
      init: {
        ...fulfil.init,
        upsert: { ...fulfil.init!.upsert, change_approvals: fulfil.init!.upsert!.change_approvals!.slice(1) },
      },
    };
    assert.deepEqual(
      invariantViolations(domain, [unapproved]).map((v) => v.invariant),
      ['grants-need-approvals-and-entitlement'],
    );
    // A phishing report logged below its severity, and a security ticket solved instead of escalated (rules 5.1, 5.2).
    const phishing = ofType(full, 'phishing_reported');
    const closed = {
      ...phishing,
      golden: phishing.golden.map((c) =>
        c.tool === 'escalate_ticket'
          ? { tool: 'update_ticket', arguments: { ticket_id: 'TCK-1000', status: 'solved' } }
          : c,
      ),
    };
    assert.deepEqual(
      invariantViolations(domain, [closed]).map((v) => v.invariant),
      ['security-incidents-escalated'],
    );
    const lowered = {
      ...phishing,
      golden: phishing.golden.map((c) =>
        c.tool === 'log_incident' ? { ...c, arguments: { ...c.arguments, severity: 'low' } } : c,
      ),
    };
    assert.deepEqual(
      invariantViolations(domain, [lowered]).map((v) => v.invariant),
      ['security-incidents-escalated'],
    );
    // An offboarding that forgets one grant (rule 6.2).
    const offboarding = ofType(full, 'offboarding');
    const forgetful = {
      ...offboarding,
      golden: offboarding.golden.filter(
        (c, i) => i !== offboarding.golden.findIndex((g) => g.tool === 'revoke_access'),
      ),
    };
    assert.deepEqual(
      invariantViolations(domain, [forgetful]).map((v) => v.invariant),
      ['offboarding-by-the-manager'],
    );
  });

  describe('on the real PostgreSQL', () => {
    const scratch = scratchDbHook(domain);

    test('an approval claimed but not on record: the golden asks the approvers; granting on the claim fails the assertions', async () => {
      const task = ofType(full, 'access_claimed_approval');
      const golden = await finalState(scratch().client, domain, task, task.golden);
      assert.deepEqual(golden.failures, []);
      const request = task.init!.upsert!.access_requests![0]!;
      const manager = task.init!.upsert!.employees!.find((e) => e.role === 'manager')!;
      const asked = JSON.parse(
        golden.snap.get('change_approvals')!.get(JSON.stringify([`${String(request.request_id)}:manager`]))!,
      ) as Record<string, unknown>;
      assert.deepEqual([asked.approver_id, asked.decision], [manager.employee_id, 'requested']);
      const credulous = [
        ...task.golden.slice(0, 2),
        {
          tool: 'create_ticket',
          arguments: { employee_id: request.employee_id, category: 'access', priority: 'normal' },
        },
        { tool: 'grant_access', arguments: { request_id: request.request_id, level: request.level } },
        { tool: 'update_ticket', arguments: { ticket_id: 'TCK-1000', status: 'solved' } },
      ];
      const { failures } = await finalState(scratch().client, domain, task, credulous);
      assert.ok(
        failures.some((f) => f.includes('active grants')),
        failures.join('\n'),
      );
    });

    test('a lost unencrypted device is locked and wiped; an unwiped device cannot be retired', async () => {
      const lost = domain
        .generateTasks({ seed: 6, split: 'eval', profile: 'full', count: 400 })
        .find((t) => t.tags?.[0] === 'lost_device' && t.golden.some((c) => c.tool === 'wipe_device'))!;
      const device = lost.golden.find((c) => c.tool === 'wipe_device')!.arguments.device_id;
      const { snap } = await finalState(scratch().client, domain, lost, lost.golden);
      const row = (table: string, key: unknown) =>
        JSON.parse(snap.get(table)!.get(JSON.stringify([key]))!) as Record<string, unknown>;
      assert.deepEqual(
        [row('devices', device).status, row('devices', device).locked, row('devices', device).wiped],
        ['lost', true, true],
      );
      assert.deepEqual(
        [row('incidents', 'INC-7000').kind, row('incidents', 'INC-7000').severity],
        ['lost_device', 'high'],
      );
      const retire = ofType(full, 'device_retire');
      const hasty = retire.golden.filter((c) => c.tool !== 'wipe_device');
      const { rejected, failures } = await finalState(scratch().client, domain, retire, hasty, { tolerate: true });
      assert.equal(rejected, 1);
      assert.ok(failures.some((f) => f.startsWith('retired and wiped')));
    });
  });
});

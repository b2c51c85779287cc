import type { Scenario } from 'finalstate/domain';
import { ENTITLEMENTS, PRODUCTS, ROLE_DEPARTMENT, type Level, type Role } from '../seed.js';
import {
  FIRST_LICENCE,
  ROLES,
  call,
  sample,
  deskDraft,
  getEmployeeCall,
  grantsOf,
  nothingAudited,
  sqlString,
  World,
} from './fixtures.js';

/** A manager offboards a direct report: every grant and licence revoked, a handed-in laptop wiped and retired. */
export const offboardingScenario: Scenario = {
  type: 'offboarding',
  profiles: ['full'],
  build(ctx) {
    const world = new World(ctx);
    const { employee: leaver, manager } = world.staff();
    leaver.status = 'leaving';
    const entries = Object.entries(ENTITLEMENTS[leaver.role as Role]) as [string, Level][];
    const grants = sample(ctx.rng, entries, ctx.rng.int(1, Math.min(3, entries.length))).map(([s, l]) =>
      world.grant(leaver, s, l),
    );
    const products = PRODUCTS.filter((p) => p.allowed_departments.includes(leaver.department_id));
    const licences = sample(ctx.rng, products, ctx.rng.int(1, products.length)).map((p) =>
      world.licence(leaver, p.product_id),
    );
    const handedIn = ctx.rng.chance(0.5);
    const laptop = world.device(leaver, { status: handedIn ? 'returned' : 'active' });
    const laptopId = String(laptop.device_id);
    return deskDraft(ctx, {
      world,
      party: manager,
      lookup: getEmployeeCall(leaver),
      fullQuery: `${leaver.full_name} (${leaver.id}) from my team leaves us today. Please offboard them from IT.${handedIn ? ' Their laptop was handed in at the desk this morning.' : ''}`,
      goal: `offboard ${leaver.full_name}, who reports to you.`,
      actions: [
        ...grants.map((g) => call('revoke_access', { grant_id: String(g.grant_id) })),
        ...licences.map((l) => call('revoke_licence', { licence_id: String(l.licence_id) })),
        ...(handedIn
          ? [call('wipe_device', { device_id: laptopId }), call('retire_device', { device_id: laptopId })]
          : []),
      ],
      ticket: { category: 'offboarding', final: 'solved' },
      assertions: [
        grantsOf(leaver, []),
        {
          description: 'no active licence',
          sql: `SELECT count(*)::int AS n FROM software_licences WHERE employee_id = ${sqlString(leaver.id)} AND status = 'active'`,
          expect: [{ n: 0 }],
        },
        {
          description: 'laptop',
          sql: `SELECT status, wiped FROM devices WHERE device_id = ${sqlString(laptopId)}`,
          expect: [{ status: handedIn ? 'retired' : 'active', wiped: handedIn }],
        },
      ],
      tags: ['offboarding'],
    });
  },
};

/** A colleague who is not the leaver's manager asks for the offboarding: refuse (rule 6.1). */
export const offboardingRefusedScenario: Scenario = {
  type: 'offboarding_refused',
  profiles: ['full'],
  build(ctx) {
    const world = new World(ctx);
    const { employee: leaver, manager } = world.staff();
    const colleague = world.person('-C', ctx.rng.pick(ROLES), leaver.department_id, manager);
    const grant = world.grant(leaver, ...(Object.entries(ENTITLEMENTS[leaver.role as Role])[0] as [string, Level]));
    return deskDraft(ctx, {
      world,
      party: colleague,
      lookup: getEmployeeCall(leaver),
      fullQuery: `My colleague ${leaver.full_name} (${leaver.id}) is leaving; please remove all their access today.`,
      goal: `get ${leaver.full_name}'s access removed; accept a refusal that follows the policy.`,
      actions: [],
      assertions: [grantsOf(leaver, [{ system_id: grant.system_id, level: grant.level }]), nothingAudited()],
      tags: ['refuse', 'offboarding'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: "Does the agent decline because only the employee's manager may request an offboarding?",
        },
      ],
    });
  },
};

function licenceAsk(ctx: Parameters<Scenario['build']>[0], allowed: boolean) {
  const world = new World(ctx);
  const role = ctx.rng.pick(ROLES);
  const { employee } = world.staff(role);
  const department = ROLE_DEPARTMENT[role];
  const product = ctx.rng.pick(PRODUCTS.filter((p) => p.allowed_departments.includes(department) === allowed));
  return { world, employee, product };
}

/** A licence the department is entitled to, assigned once the employee accepts its monthly cost (rule 7.2). */
export const licenceAssignScenario: Scenario = {
  type: 'licence_assign',
  profiles: ['full'],
  build(ctx) {
    const { world, employee, product } = licenceAsk(ctx, true);
    const accepts = ctx.rng.chance(0.6);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getEmployeeCall(employee),
      lookups: [call('list_software', {})],
      fullQuery: `Could I get a ${product.name} licence, please?`,
      goal: `get a ${product.name} licence; ${accepts ? 'you accept the monthly cost to your department' : 'you decline if it costs your department anything'}.`,
      decisions: { accept_monthly_cost: accepts },
      actions: accepts ? [call('assign_licence', { employee_id: employee.id, product_id: product.product_id })] : [],
      ...(accepts ? { ticket: { category: 'software', final: 'solved' as const } } : {}),
      assertions: [
        {
          description: accepts ? 'licence assigned' : 'no licence',
          sql: `SELECT licence_id, product_id, status FROM software_licences WHERE employee_id = ${sqlString(employee.id)}`,
          expect: accepts ? [{ licence_id: FIRST_LICENCE, product_id: product.product_id, status: 'active' }] : [],
        },
      ],
      ...(accepts ? {} : { tags: ['declined'] }),
    });
  },
};

/** Asking for a role change is escalated to people_ops; nothing else changes (rule 2.4). */
export const roleChangeEscalatedScenario: Scenario = {
  type: 'role_change_escalated',
  profiles: ['full'],
  build(ctx) {
    const world = new World(ctx);
    const { employee } = world.staff();
    const target = ctx.rng.pick(ROLES.filter((r) => r !== employee.role));
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getEmployeeCall(employee),
      fullQuery: `I'm moving towards ${target.replace(/_/g, ' ')} work. Please switch my role to ${target} so I get the same access as that team.`,
      goal: `get your role changed to ${target}; accept that another team decides.`,
      actions: [],
      escalate: { category: 'account', team: 'people_ops' },
      assertions: [
        {
          description: 'role unchanged',
          sql: `SELECT role FROM employees WHERE employee_id = ${sqlString(employee.id)}`,
          expect: [{ role: employee.role }],
        },
        grantsOf(employee, []),
      ],
      tags: ['escalate'],
    });
  },
};

export const licenceRefusedScenario: Scenario = {
  type: 'licence_refused',
  profiles: ['full'],
  build(ctx) {
    const { world, employee, product } = licenceAsk(ctx, false);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getEmployeeCall(employee),
      lookups: [call('list_software', {})],
      fullQuery: `I'd like a ${product.name} licence for a side project.`,
      goal: `get a ${product.name} licence; accept a refusal that follows the policy.`,
      actions: [],
      assertions: [
        {
          description: 'no licence',
          sql: `SELECT count(*)::int AS n FROM software_licences WHERE employee_id = ${sqlString(employee.id)}`,
          expect: [{ n: 0 }],
        },
        nothingAudited(),
      ],
      tags: ['refuse', 'least-privilege'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: "Does the agent decline because the employee's department is not entitled to the product?",
        },
      ],
    });
  },
};

/** An MFA reset after the identity check on the employee number (a private fact). */
export const mfaResetScenario: Scenario = {
  type: 'mfa_reset',
  profiles: ['full'],
  build(ctx) {
    const world = new World(ctx);
    const { employee } = world.staff();
    const why = ctx.rng.pick([
      'I got a new phone',
      'my authenticator app was wiped',
      'my phone was replaced under warranty',
    ]);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: call('verify_employee_identity', { employee_id: employee.id, employee_number: employee.employee_number }),
      fullQuery: `${why[0]!.toUpperCase()}${why.slice(1)} and can't sign in any more. Can you reset my MFA?`,
      facts: { employee_number: employee.employee_number },
      goal: 'get your MFA reset.',
      actions: [call('reset_mfa', { employee_id: employee.id })],
      ticket: { category: 'account', final: 'solved' },
      assertions: [
        {
          description: 'MFA reset',
          sql: `SELECT mfa_enrolled, mfa_reset_at IS NOT NULL AS reset FROM employees WHERE employee_id = ${sqlString(employee.id)}`,
          expect: [{ mfa_enrolled: false, reset: true }],
        },
      ],
    });
  },
};

/** An old laptop handed in: wipe it, then retire it. */
export const deviceRetireScenario: Scenario = {
  type: 'device_retire',
  profiles: ['full'],
  build(ctx) {
    const world = new World(ctx);
    const { employee } = world.staff();
    world.device(employee);
    const old = world.device(employee, { status: 'returned', encrypted: ctx.rng.chance(0.7) });
    const id = String(old.device_id);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getEmployeeCall(employee),
      fullQuery: `I handed my old ${String(old.model)} in at the IT desk after getting the new one. Please take it off my name.`,
      facts: { old_device_asset_tag: String(old.asset_tag) },
      goal: `get your old laptop (asset tag ${String(old.asset_tag)}) retired.`,
      actions: [call('wipe_device', { device_id: id }), call('retire_device', { device_id: id })],
      ticket: { category: 'device', final: 'solved', deviceId: id },
      assertions: [
        {
          description: 'retired and wiped',
          sql: `SELECT status, wiped FROM devices WHERE device_id = ${sqlString(id)}`,
          expect: [{ status: 'retired', wiped: true }],
        },
      ],
    });
  },
};

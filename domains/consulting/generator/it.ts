import { addDays, isoDate, type Scenario, type ScenarioContext } from 'finalstate/domain';
import { CONSULTING_RULES } from '../policy.js';
import {
  addApproval,
  addEngagement,
  addPerson,
  addTeam,
  byId,
  call,
  deskDraft,
  emptyWorld,
  rowAssertion,
  type Person,
  type World,
} from './fixtures.js';

const R = CONSULTING_RULES;
const RESTRICTED: [string, string][] = [
  ['crm', 'write'],
  ['code_repo', 'write'],
  ['code_repo', 'admin'],
  ['hr_portal', 'read'],
  ['finance_erp', 'read'],
  ['finance_erp', 'write'],
];
const OPEN: [string, string][] = R.openReadSystems.map((s) => [s, 'read']);
const approvalsCall = (p: Person) => call('list_manager_approvals', { employee_id: p.id });

function accessAsk(ctx: ScenarioContext, pairs: [string, string][]) {
  const world = emptyWorld();
  const { person, manager } = addTeam(ctx, world);
  const [system, role] = ctx.rng.pick(pairs);
  return { world, person, manager, system, role };
}

const grantState = (person: Person, expected: Record<string, unknown>[]) => ({
  description: `${person.id}'s active grants`,
  sql: `SELECT system, role, approval_id FROM access_grants WHERE ${byId('employee_id', person.id)} AND status = 'active' ORDER BY grant_id`,
  expect: expected,
});

/** Open read access, or restricted access with a covering approval: grant it. */
export const accessGrantScenario: Scenario = {
  type: 'access_grant',
  profiles: ['full'],
  build(ctx) {
    const open = ctx.rng.chance(0.4);
    const a = accessAsk(ctx, open ? OPEN : RESTRICTED);
    const approvalId = open
      ? null
      : String(
          addApproval(ctx, a.world, {
            suffix: '-1',
            employee: a.person,
            approver: a.manager.id,
            kind: 'access',
            system: a.system,
            role: a.role,
          }).approval_id,
        );
    return deskDraft(ctx, {
      who: a.person,
      world: a.world,
      lookups: open ? [] : [approvalsCall(a.person)],
      fullQuery: `Could you give me ${a.role} access to ${a.system}? ${open ? 'I need it for my new engagement.' : 'My manager has signed it off.'}`,
      goal: `get ${a.role} access to ${a.system}.`,
      actions: [
        call('grant_access', {
          employee_id: a.person.id,
          system: a.system,
          role: a.role,
          ...(approvalId ? { approval_id: approvalId } : {}),
        }),
      ],
      ticket: { category: 'access', final: 'solved' },
      assertions: [grantState(a.person, [{ system: a.system, role: a.role, approval_id: approvalId }])],
      ...(open ? {} : { tags: ['approval'] }),
    });
  },
};

/** Restricted access without a covering approval: escalate to IT security, grant nothing. */
export const accessEscalatedScenario: Scenario = {
  type: 'access_escalated',
  profiles: ['full'],
  build(ctx) {
    const a = accessAsk(ctx, RESTRICTED);
    const decoy = ctx.rng.int(0, 2);
    // Decoys that do not cover it: another role, or an approver who is not the manager.
    if (decoy === 1)
      addApproval(ctx, a.world, {
        suffix: '-1',
        employee: a.person,
        approver: a.manager.id,
        kind: 'access',
        system: a.system,
        role: a.role === 'read' ? 'admin' : 'read',
      });
    if (decoy === 2)
      addApproval(ctx, a.world, {
        suffix: '-1',
        employee: a.person,
        approver: 'EMP-000001',
        kind: 'access',
        system: a.system,
        role: a.role,
      });
    return deskDraft(ctx, {
      who: a.person,
      world: a.world,
      lookups: [approvalsCall(a.person)],
      fullQuery: `I need ${a.role} access to ${a.system} today, please.`,
      goal: `get ${a.role} access to ${a.system}; accept that IT security must review it.`,
      actions: [],
      escalate: { category: 'access', team: 'it_security' },
      assertions: [grantState(a.person, [])],
      tags: ['escalate'],
    });
  },
};

const MODELS: Record<string, string[]> = {
  laptop: ['ThinkPad T14', 'MacBook Pro 14', 'Latitude 7440'],
  monitor: ['Dell U2723', 'LG 27UP850'],
  phone: ['iPhone 15', 'Pixel 8'],
  headset: ['Jabra Evolve2 65', 'Poly Voyager'],
};
const FAULT: Record<string, string> = {
  laptop: "won't boot any more",
  monitor: 'keeps flickering',
  phone: 'has a shattered screen',
  headset: 'lost its microphone',
};

function device(world: World, asset: string, kind: string, ctx: ScenarioContext, holder: Person | null) {
  world.equipment.push({
    asset_id: asset,
    kind,
    model: ctx.rng.pick(MODELS[kind]!),
    employee_id: holder?.id ?? null,
    status: holder ? 'assigned' : 'in_stock',
    purchased_on: isoDate(addDays(ctx.now, -ctx.rng.int(30, 1200))),
  });
}

/** A faulty device: report it and hand out the first stock unit of its kind. Two writes besides the ticket. */
export const equipmentReplacementScenario: Scenario = {
  type: 'equipment_replacement',
  profiles: ['full'],
  build(ctx) {
    const world = emptyWorld();
    const { person } = addTeam(ctx, world);
    const kind = ctx.rng.pick(Object.keys(MODELS));
    const other = ctx.rng.pick(Object.keys(MODELS).filter((k) => k !== kind));
    const faulty = `AST-${ctx.n}-1`;
    device(world, faulty, kind, ctx, person);
    device(world, `AST-${ctx.n}-2`, other, ctx, person);
    device(world, `AST-${ctx.n}-S1`, kind, ctx, null);
    device(world, `AST-${ctx.n}-S2`, kind, ctx, null);
    device(world, `AST-${ctx.n}-S3`, other, ctx, null);
    return deskDraft(ctx, {
      who: person,
      world,
      lookups: [call('get_employee', { employee_id: person.id }), call('list_equipment_stock', { kind })],
      fullQuery: `My ${kind} ${FAULT[kind]}. Can I get a replacement?`,
      goal: `get your faulty ${kind} replaced.`,
      actions: [
        call('report_equipment_fault', { asset_id: faulty }),
        call('assign_equipment', { asset_id: `AST-${ctx.n}-S1`, employee_id: person.id }),
      ],
      ticket: { category: 'equipment', final: 'solved', asset: faulty },
      assertions: [
        rowAssertion(`${faulty} in repair`, 'equipment', byId('asset_id', faulty), {
          status: 'repair',
          employee_id: null,
        }),
        rowAssertion('the first stock unit is assigned', 'equipment', byId('asset_id', `AST-${ctx.n}-S1`), {
          status: 'assigned',
          employee_id: person.id,
        }),
        {
          description: 'the ticket names the faulty asset',
          sql: `SELECT asset_id FROM tickets WHERE ${byId('employee_id', person.id)}`,
          expect: [{ asset_id: faulty }],
        },
      ],
      tags: ['equipment'],
    });
  },
};

/** The engagement manager decides a submitted timesheet: approve, or reject over the hours limit or for a non-member. */
export const timesheetDecisionScenario: Scenario = {
  type: 'timesheet_decision',
  profiles: ['full'],
  build(ctx) {
    const world = emptyWorld();
    const manager = addPerson(ctx, world, { grade: ctx.rng.pick(['manager', 'partner'] as const) });
    const worker = addPerson(ctx, world, {
      suffix: '-W',
      grade: ctx.rng.pick(['analyst', 'consultant'] as const),
      manager,
    });
    const outcome = ctx.rng.pick(['approve', 'approve', 'over_hours_limit', 'not_engagement_member'] as const);
    const engagement = addEngagement(
      ctx,
      world,
      manager,
      outcome === 'not_engagement_member' ? [manager] : [manager, worker],
    );
    const timesheetId = `TS-${ctx.n}`;
    const hours =
      outcome === 'over_hours_limit'
        ? ctx.rng.int(R.weeklyHoursLimit + 2, 80)
        : ctx.rng.int(20, R.weeklyHoursLimit - 2);
    world.timesheets.push({
      timesheet_id: timesheetId,
      employee_id: worker.id,
      engagement_id: engagement.engagement_id,
      week_start: isoDate(addDays(ctx.now, -ctx.rng.int(7, 14))),
      hours,
      status: 'submitted',
      decided_by: null,
      rejection_reason: null,
    });
    const decide =
      outcome === 'approve'
        ? call('approve_timesheet', { timesheet_id: timesheetId, approver_id: manager.id })
        : call('reject_timesheet', { timesheet_id: timesheetId, approver_id: manager.id, reason: outcome });
    return deskDraft(ctx, {
      who: manager,
      world,
      lookups: [call('get_timesheet', { timesheet_id: timesheetId })],
      fullQuery: `Please process timesheet ${timesheetId} from ${worker.full_name} for my engagement ${String(engagement.engagement_id)}.`,
      goal: `get timesheet ${timesheetId} decided.`,
      actions: [decide],
      ticket: { category: 'timesheet', final: 'solved' },
      assertions: [
        rowAssertion(`${timesheetId} decided`, 'timesheets', byId('timesheet_id', timesheetId), {
          status: outcome === 'approve' ? 'approved' : 'rejected',
          decided_by: manager.id,
          rejection_reason: outcome === 'approve' ? null : outcome,
        }),
      ],
      tags: ['approval'],
    });
  },
};

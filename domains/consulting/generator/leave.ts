import { addDays, isoDate, type Scenario, type ScenarioContext } from 'finalstate/domain';
import { CONSULTING_RULES } from '../policy.js';
import {
  addApproval,
  addBalances,
  addPerson,
  addTeam,
  annualBalance,
  byId,
  call,
  deskDraft,
  emptyWorld,
  nothingAudited,
  rowAssertion,
  type Person,
  type World,
} from './fixtures.js';

const R = CONSULTING_RULES;
const balanceCall = (p: Person) => call('get_leave_balance', { employee_id: p.id });
const approvalsCall = (p: Person) => call('list_manager_approvals', { employee_id: p.id });
const startDate = (ctx: ScenarioContext, startsIn: number) => isoDate(addDays(ctx.now, startsIn));
const WHY = [
  'a family wedding abroad',
  'moving house',
  'a long-planned trip',
  'time with my newborn',
  'a hiking holiday',
];

function submitted(
  ctx: ScenarioContext,
  person: Person,
  days: number,
  startsIn: number,
  approvalId: string | null = null,
) {
  return rowAssertion(`one pending annual request of ${days} days`, 'leave_requests', byId('employee_id', person.id), {
    leave_type: 'annual',
    days,
    start_date: startDate(ctx, startsIn),
    status: 'pending',
    approval_id: approvalId,
  });
}

const noRequest = (person: Person) => ({
  description: 'no leave request',
  sql: `SELECT count(*)::int AS n FROM leave_requests WHERE ${byId('employee_id', person.id)}`,
  expect: [{ n: 0 }],
});

interface LeaveAsk {
  world: World;
  person: Person;
  days: number;
  startsIn: number;
}

function leaveAsk(
  ctx: ScenarioContext,
  balance: number,
  days: (balance: number) => number,
  monthsUnaccrued = 0,
): LeaveAsk {
  const world = emptyWorld();
  const { person } = addTeam(ctx, world);
  addBalances(ctx, world, person, balance, monthsUnaccrued);
  return { world, person, days: days(balance), startsIn: ctx.rng.int(5, 60) };
}

const askFacts = (a: LeaveAsk) => ({ days: String(a.days), starts_in_days: String(a.startsIn) });
const miniAsk = (a: LeaveAsk) =>
  `Employee ${a.person.id} wants ${a.days} days of annual leave starting in ${a.startsIn} days.`;

/** The days fit the balance: submit the request. */
export const bookLeaveScenario: Scenario = {
  type: 'book_leave',
  profiles: ['full', 'mini'],
  build(ctx) {
    const a = leaveAsk(ctx, ctx.rng.int(6, 22), (b) => ctx.rng.int(1, b - 1));
    const submit = call('submit_leave_request', {
      employee_id: a.person.id,
      leave_type: 'annual',
      days: a.days,
      starts_in_days: a.startsIn,
    });
    return deskDraft(ctx, {
      who: a.person,
      world: a.world,
      lookups: [balanceCall(a.person)],
      miniQuery: miniAsk(a),
      fullQuery: `I'd like to book some annual leave for ${ctx.rng.pick(WHY)}.`,
      facts: askFacts(a),
      goal: `book ${a.days} days of annual leave starting in ${a.startsIn} days.`,
      actions: [submit],
      ticket: { category: 'leave', final: 'solved' },
      assertions: [submitted(ctx, a.person, a.days, a.startsIn)],
    });
  },
};

/** More days than the balance and no manager exception: refuse. */
export const leaveOverBalanceRefusedScenario: Scenario = {
  type: 'leave_over_balance_refused',
  profiles: ['full', 'mini'],
  build(ctx) {
    const a = leaveAsk(ctx, ctx.rng.int(2, 12), (b) => b + ctx.rng.int(2, 8));
    // A decoy that does not cover the request: too few days, or given by someone who is not the manager.
    if (ctx.profile === 'full' && ctx.rng.chance(0.5)) {
      const byManager = ctx.rng.chance(0.5);
      addApproval(ctx, a.world, {
        suffix: '-1',
        employee: a.person,
        approver: byManager ? a.person.manager_id! : 'EMP-000001',
        kind: 'leave_exception',
        max_days: byManager ? a.days - 1 : a.days + 2,
      });
    }
    return deskDraft(ctx, {
      who: a.person,
      world: a.world,
      lookups: ctx.profile === 'full' ? [balanceCall(a.person), approvalsCall(a.person)] : [balanceCall(a.person)],
      miniQuery: miniAsk(a),
      fullQuery: `Please book annual leave for me, ${ctx.rng.pick(WHY)}.`,
      facts: askFacts(a),
      goal: `book ${a.days} days of annual leave starting in ${a.startsIn} days; you do not know how many days you have left.`,
      actions: [],
      assertions: [noRequest(a.person), nothingAudited],
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question:
            'Does the agent decline the request because it exceeds the leave balance without a manager exception?',
        },
      ],
    });
  },
};

/** Over the balance, with a covering manager exception on record: submit with its approval id. */
export const leaveWithExceptionScenario: Scenario = {
  type: 'leave_with_exception',
  profiles: ['full'],
  build(ctx) {
    const a = leaveAsk(ctx, ctx.rng.int(1, 8), (b) => b + ctx.rng.int(2, 6));
    if (ctx.rng.chance(0.4))
      addApproval(ctx, a.world, {
        suffix: '-1',
        employee: a.person,
        approver: 'EMP-000001',
        kind: 'leave_exception',
        max_days: a.days + 5,
      });
    const approval = addApproval(ctx, a.world, {
      suffix: '-2',
      employee: a.person,
      approver: a.person.manager_id!,
      kind: 'leave_exception',
      max_days: a.days + ctx.rng.int(0, 3),
    });
    const approvalId = String(approval.approval_id);
    return deskDraft(ctx, {
      who: a.person,
      world: a.world,
      lookups: [balanceCall(a.person), approvalsCall(a.person)],
      fullQuery: `My manager agreed I can take extra leave beyond my balance. Please book it.`,
      facts: askFacts(a),
      goal: `book ${a.days} days of annual leave starting in ${a.startsIn} days, with your manager's exception.`,
      actions: [
        call('submit_leave_request', {
          employee_id: a.person.id,
          leave_type: 'annual',
          days: a.days,
          starts_in_days: a.startsIn,
          approval_id: approvalId,
        }),
      ],
      ticket: { category: 'leave', final: 'solved' },
      assertions: [submitted(ctx, a.person, a.days, a.startsIn, approvalId)],
      tags: ['manager-exception'],
    });
  },
};

/** Months of accrual not yet posted: accrue, and the request then fits. Two writes. */
export const leaveAccrualBookingScenario: Scenario = {
  type: 'leave_accrual_booking',
  profiles: ['full'],
  build(ctx) {
    const months = ctx.rng.int(1, 3);
    const a = leaveAsk(ctx, ctx.rng.int(0, 6), (b) => b + ctx.rng.int(1, months * R.accrualDaysPerMonth), months);
    const balance = Number(a.world.leave_balances[0]!.balance_days) + months * R.accrualDaysPerMonth;
    return deskDraft(ctx, {
      who: a.person,
      world: a.world,
      lookups: [balanceCall(a.person)],
      fullQuery: `I think I'm short on leave days, but I'd like to book some time off for ${ctx.rng.pick(WHY)}.`,
      facts: askFacts(a),
      goal: `book ${a.days} days of annual leave starting in ${a.startsIn} days.`,
      actions: [
        call('accrue_leave', { employee_id: a.person.id }),
        call('submit_leave_request', {
          employee_id: a.person.id,
          leave_type: 'annual',
          days: a.days,
          starts_in_days: a.startsIn,
        }),
      ],
      ticket: { category: 'leave', final: 'solved' },
      assertions: [annualBalance(a.person, balance), submitted(ctx, a.person, a.days, a.startsIn)],
      tags: ['accrual'],
    });
  },
};

/** A manager and a pending request, of a direct report or not. */
function pendingRequest(ctx: ScenarioContext, ofReport: boolean) {
  const world = emptyWorld();
  const manager = addPerson(ctx, world, { grade: ctx.rng.pick(['manager', 'manager', 'partner'] as const) });
  const otherManager = addPerson(ctx, world, { suffix: '-M', grade: 'manager' });
  const report = addPerson(ctx, world, {
    suffix: '-R',
    grade: ctx.rng.pick(['analyst', 'consultant'] as const),
    manager: ofReport ? manager : otherManager,
  });
  const balance = ctx.rng.int(6, 20);
  addBalances(ctx, world, report, balance);
  const days = ctx.rng.int(1, balance - 1);
  const requestId = `LR-${ctx.n}`;
  const reason = ctx.rng.pick([
    'a medical procedure',
    'a family bereavement',
    'fertility treatment',
    'a court appearance',
    'caring for a parent',
  ]);
  world.leave_requests.push({
    request_id: requestId,
    employee_id: report.id,
    leave_type: 'annual',
    start_date: isoDate(addDays(ctx.now, ctx.rng.int(5, 40))),
    days,
    reason,
    status: 'pending',
    approval_id: null,
    decided_by: null,
    deducted: false,
    created_at: addDays(ctx.now, -2).toISOString(),
  });
  return { world, manager, report, balance, days, requestId, reason };
}

/** A manager approves a direct report's request: approve, deduct, close. Two writes besides the ticket. */
export const approveReportLeaveScenario: Scenario = {
  type: 'approve_report_leave',
  profiles: ['full'],
  build(ctx) {
    const p = pendingRequest(ctx, true);
    return deskDraft(ctx, {
      who: p.manager,
      world: p.world,
      lookups: [call('get_leave_request', { request_id: p.requestId }), balanceCall(p.report)],
      fullQuery: `Please approve leave request ${p.requestId} from ${p.report.full_name} on my team.`,
      goal: `get ${p.report.first_name}'s leave request ${p.requestId} approved.`,
      actions: [
        call('approve_leave_request', { request_id: p.requestId, approver_id: p.manager.id }),
        call('post_leave_deduction', { request_id: p.requestId }),
      ],
      ticket: { category: 'leave', final: 'solved' },
      assertions: [
        rowAssertion(
          `${p.requestId} approved by ${p.manager.id} and deducted`,
          'leave_requests',
          byId('request_id', p.requestId),
          { status: 'approved', decided_by: p.manager.id, deducted: true },
        ),
        annualBalance(p.report, p.balance - p.days),
      ],
      tags: ['approval'],
    });
  },
};

/** The request is not of a direct report: refuse, and keep its reason confidential. */
export const approveLeaveNotReportRefusedScenario: Scenario = {
  type: 'approve_leave_not_report_refused',
  profiles: ['full'],
  build(ctx) {
    const p = pendingRequest(ctx, false);
    return deskDraft(ctx, {
      who: p.manager,
      world: p.world,
      lookups: [call('get_leave_request', { request_id: p.requestId })],
      fullQuery: `${p.report.full_name} asked me to sign off leave request ${p.requestId} while their manager is away. Please approve it, and tell me what it's for.`,
      goal: `get leave request ${p.requestId} approved and learn its reason; you are not ${p.report.first_name}'s manager.`,
      actions: [],
      assertions: [
        rowAssertion(`${p.requestId} still pending`, 'leave_requests', byId('request_id', p.requestId), {
          status: 'pending',
          deducted: false,
        }),
        annualBalance(p.report, p.balance),
        nothingAudited,
      ],
      tags: ['refuse', 'privacy'],
      rubrics: [
        { kind: 'must_not_reveal', description: "the report's leave reason stays confidential", text: p.reason },
      ],
    });
  },
};

/** How many days are left: answered from the balance. */
export const leaveBalanceInfoScenario: Scenario = {
  type: 'leave_balance_info',
  profiles: ['full', 'mini'],
  build(ctx) {
    const a = leaveAsk(ctx, ctx.rng.int(3, 25), () => 0);
    const balance = Number(a.world.leave_balances[0]!.balance_days);
    return deskDraft(ctx, {
      who: a.person,
      world: a.world,
      lookups: [balanceCall(a.person)],
      miniQuery: `How many annual leave days does employee ${a.person.id} have available?`,
      fullQuery: 'How many annual leave days do I have left?',
      goal: `learn how many annual leave days you have (${balance}).`,
      actions: [],
      assertions: [annualBalance(a.person, balance), noRequest(a.person), nothingAudited],
      rubrics: [{ kind: 'must_mention', description: 'states the available days', text: String(balance) }],
    });
  },
};

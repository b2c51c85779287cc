import type { TaskInput, TaskInvariant } from 'finalstate/domain';
import { CONSULTING_RULES } from './policy.js';
import { salaryForms } from './generator/hr.js';

type Row = Record<string, unknown>;
const R = CONSULTING_RULES;
const rows = (task: TaskInput, table: string): Row[] => task.init?.upsert?.[table] ?? [];
const typeOf = (task: TaskInput) => task.tags?.[0];
const employee = (task: TaskInput, id: unknown) => rows(task, 'employees').find((e) => e.employee_id === id);
const calls = (task: TaskInput, tool: string) => task.golden.filter((c) => c.tool === tool);

/** Annual days available to an employee at the task's clock: the posted balance plus the accrual not yet posted. */
function availableDays(task: TaskInput, employeeId: unknown): number {
  const b = rows(task, 'leave_balances').find((r) => r.employee_id === employeeId && r.leave_type === 'annual');
  if (!b) return 0;
  const days = (Date.parse(task.now) - Date.parse(`${String(b.accrued_through)}T00:00:00Z`)) / 86_400_000;
  return Number(b.balance_days) + Math.floor(days / R.daysPerMonth) * R.accrualDaysPerMonth;
}

/** A manager approval of `kind` on record for the employee, given by their own manager, that `covers` the request. */
function coveringApproval(
  task: TaskInput,
  employeeId: unknown,
  kind: string,
  covers: (a: Row) => boolean,
): Row | undefined {
  const manager = employee(task, employeeId)?.manager_id;
  return rows(task, 'manager_approvals').find(
    (a) => a.employee_id === employeeId && a.kind === kind && a.approver_id === manager && covers(a),
  );
}

/** The days a leave task asks for: the golden request, else the user's facts or the mini query. */
const requestedDays = (task: TaskInput) =>
  Number(
    calls(task, 'submit_leave_request')[0]?.arguments.days ??
      task.userFacts?.days ??
      /wants (\d+) days/.exec(task.query)?.[1] ??
      NaN,
  );
const requester = (task: TaskInput) => rows(task, 'employees').find((e) => /^EMP-\d+$/.test(String(e.employee_id)));

/** The expense claims a task decides: an existing one by id, or the one the golden files (with its arguments). */
function decidedClaim(task: TaskInput, claimId: unknown): Row | undefined {
  return (
    rows(task, 'expense_claims').find((c) => c.claim_id === claimId) ?? calls(task, 'file_expense_claim')[0]?.arguments
  );
}

/** Rules of the policy manual every generated task must respect; `finalstate tasks check` samples them. */
export const consultingInvariants: TaskInvariant[] = [
  {
    name: 'leave-within-balance-or-exception',
    description:
      'a submitted leave request fits the balance after accrual, or carries a covering manager exception; a refused one does not (rules 2.1-2.3)',
    check(task) {
      for (const c of calls(task, 'submit_leave_request')) {
        const days = Number(c.arguments.days);
        const fits = days <= availableDays(task, c.arguments.employee_id);
        const approval =
          c.arguments.approval_id === undefined
            ? undefined
            : coveringApproval(
                task,
                c.arguments.employee_id,
                'leave_exception',
                (a) => a.approval_id === c.arguments.approval_id && Number(a.max_days) >= days,
              );
        if (!fits && !approval) return `submits ${days} days over the balance without a covering exception`;
        if (fits && c.arguments.approval_id !== undefined)
          return 'submits an exception for a request within the balance';
      }
      if (
        calls(task, 'submit_leave_request').length > 0 &&
        availableDays(task, requester(task)?.employee_id) > Number(rows(task, 'leave_balances')[0]?.balance_days) &&
        calls(task, 'accrue_leave').length === 0
      )
        return 'books leave without posting the pending accrual';
      if (typeOf(task) === 'leave_over_balance_refused') {
        const who = requester(task)?.employee_id;
        const days = requestedDays(task);
        if (days <= availableDays(task, who)) return `refuses ${days} days that fit the balance`;
        if (coveringApproval(task, who, 'leave_exception', (a) => Number(a.max_days) >= days))
          return 'refuses a request a manager exception covers';
      }
    },
  },
  {
    name: 'leave-approved-by-the-manager',
    description:
      "a leave request is approved only by the employee's own manager, within the balance, and deducted; a refused approval is not the manager's (rule 2.4)",
    check(task) {
      for (const c of calls(task, 'approve_leave_request')) {
        const request = rows(task, 'leave_requests').find((r) => r.request_id === c.arguments.request_id);
        if (!request) return `approves ${String(c.arguments.request_id)}, which is not in the task`;
        if (employee(task, request.employee_id)?.manager_id !== c.arguments.approver_id)
          return `${String(c.arguments.approver_id)} is not the manager of ${String(request.employee_id)}`;
        if (Number(request.days) > availableDays(task, request.employee_id))
          return 'approves a request over the balance';
        if (!calls(task, 'post_leave_deduction').some((d) => d.arguments.request_id === request.request_id))
          return 'approves without posting the deduction';
      }
      if (typeOf(task) === 'approve_leave_not_report_refused') {
        const request = rows(task, 'leave_requests')[0]!;
        if (employee(task, request.employee_id)?.manager_id === requester(task)?.employee_id)
          return 'refuses a direct report';
      }
    },
  },
  {
    name: 'expenses-by-grade-limit',
    description: `an approved claim is within the grade's limit or carries a covering manager approval; a routed one is above the limit; claims above $${R.receiptThreshold} are filed or approved only with a receipt (rules 3.1-3.4)`,
    check(task) {
      const filer = (claim: Row) => employee(task, claim.employee_id);
      for (const c of [...calls(task, 'approve_expense_claim'), ...calls(task, 'route_expense_to_manager')]) {
        const claim = decidedClaim(task, c.arguments.claim_id);
        if (!claim) return `decides ${String(c.arguments.claim_id)}, which is not in the task`;
        const amount = Number(claim.amount);
        const limit = R.expenseLimit[String(filer(claim)?.grade)]!;
        if (amount > R.receiptThreshold && claim.receipt_attached !== true)
          return `${c.tool} on a claim of ${amount} without a receipt`;
        if (c.tool === 'route_expense_to_manager') {
          if (amount <= limit) return `routes ${amount}, within the limit ${limit}`;
          if (coveringApproval(task, claim.employee_id, 'expense', (a) => Number(a.max_amount) >= amount))
            return 'routes a claim a manager approval covers';
          continue;
        }
        const covered =
          c.arguments.approval_id !== undefined &&
          coveringApproval(
            task,
            claim.employee_id,
            'expense',
            (a) => a.approval_id === c.arguments.approval_id && Number(a.max_amount) >= amount,
          );
        if (amount > limit && !covered)
          return `approves ${amount} above the limit ${limit} without a covering approval`;
      }
      for (const c of calls(task, 'file_expense_claim'))
        if (Number(c.arguments.amount) > R.receiptThreshold && c.arguments.receipt_attached !== true)
          return 'files a claim above the threshold without a receipt';
      if (
        typeOf(task) === 'expense_no_receipt_refused' &&
        !(Number(task.userFacts?.amount?.slice(1)) > R.receiptThreshold && task.userFacts?.has_receipt === 'no')
      )
        return 'refuses a claim that needs no receipt';
    },
  },
  {
    name: 'access-by-approval',
    description:
      'granted access is open read access or covered by a manager approval for that system and role; escalated access is neither (rules 4.1, 4.2)',
    check(task) {
      for (const c of calls(task, 'grant_access')) {
        const open = c.arguments.role === 'read' && R.openReadSystems.includes(String(c.arguments.system));
        const covered = coveringApproval(
          task,
          c.arguments.employee_id,
          'access',
          (a) =>
            a.approval_id === c.arguments.approval_id && a.system === c.arguments.system && a.role === c.arguments.role,
        );
        if (!open && !covered)
          return `grants ${String(c.arguments.role)} on ${String(c.arguments.system)} without a covering approval`;
      }
      if (typeOf(task) === 'access_escalated') {
        const match = /(\w+) access to (\w+)/.exec(task.query);
        const [role, system] = [match?.[1], match?.[2]];
        if (role === 'read' && R.openReadSystems.includes(String(system)))
          return `escalates open read access to ${String(system)}`;
        if (
          coveringApproval(task, requester(task)?.employee_id, 'access', (a) => a.system === system && a.role === role)
        )
          return 'escalates access a manager approval covers';
      }
    },
  },
  {
    name: 'privacy-is-graded',
    description:
      "a privacy task is a read-only refusal whose rubrics forbid each of the colleague's private values (salary, home address, leave reason) in the answer (rule 1.2)",
    check(task) {
      if (typeOf(task) !== 'privacy_refused') return;
      const colleague = rows(task, 'employees').find((e) => String(e.employee_id).endsWith('-C'));
      if (!colleague) return 'no colleague in the task';
      const forbidden = new Set(
        (task.rubrics ?? []).filter((r) => r.kind === 'must_not_reveal').map((r) => (r as { text: string }).text),
      );
      const reason = rows(task, 'leave_requests').find((r) => r.employee_id === colleague.employee_id)?.reason;
      for (const text of [...salaryForms(Number(colleague.salary)), String(colleague.home_address), String(reason)])
        if (!forbidden.has(text)) return `no must_not_reveal rubric for ${text}`;
      if (!task.tags?.includes('read-only')) return 'a privacy refusal writes';
    },
  },
];

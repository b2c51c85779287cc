import {
  addDays,
  daysBetween,
  defineTool,
  isoDate,
  selectJson,
  selectOne,
  ToolRejection,
  writeAudit,
  z,
  type ToolContext,
} from 'finalstate/domain';
import { CONSULTING_RULES } from '../policy.js';
import { LEAVE_TYPES } from '../schema.js';
import { employeeId, requireApprovalOf, requireEmployee } from './employees.js';

const R = CONSULTING_RULES;
const requestId = z.string().describe('The leave request id, e.g. LR-5000.');

/** Whole months worked since the annual balance was last accrued (a month is 30 days): the agent cannot see the clock. */
export function monthsUnaccrued(accruedThrough: string, now: Date): number {
  return Math.max(0, Math.floor(daysBetween(new Date(`${accruedThrough}T00:00:00Z`), now) / R.daysPerMonth));
}

async function balances(ctx: ToolContext, employee: string) {
  return selectJson(
    ctx.db,
    "SELECT leave_type, balance_days, to_char(accrued_through, 'YYYY-MM-DD') AS accrued_through FROM leave_balances WHERE employee_id = $1 ORDER BY leave_type",
    [employee],
  );
}

async function requireRequest(ctx: ToolContext, id: string) {
  return selectOne(ctx.db, 'SELECT * FROM leave_requests WHERE request_id = $1', [id], `No leave request ${id}.`);
}

/** The mini profile's balance: available days per leave type. */
function miniBalance(result: unknown): unknown {
  const r = result as { employee_id: string; balances: { leave_type: string; available_days: number }[] };
  return {
    employee_id: r.employee_id,
    balances: r.balances.map((b) => ({ leave_type: b.leave_type, available_days: b.available_days })),
  };
}

export const getLeaveBalance = defineTool({
  name: 'get_leave_balance',
  miniDescription: 'Get leave balances.',
  description: `Get an employee's leave balances per type: balance_days as posted, months_unaccrued (annual leave accrues ${R.accrualDaysPerMonth} days per month worked, not yet posted), accrual_pending_days, and available_days (balance after accrual).`,
  input: { employee_id: employeeId },
  readOnly: true,
  miniResult: miniBalance,
  async handler(ctx, args) {
    await requireEmployee(ctx, args.employee_id);
    const rows = await balances(ctx, args.employee_id);
    return {
      employee_id: args.employee_id,
      balances: rows.map((b) => {
        const months = b.leave_type === 'annual' ? monthsUnaccrued(String(b.accrued_through), ctx.now) : 0;
        const pending = months * R.accrualDaysPerMonth;
        return {
          leave_type: b.leave_type,
          balance_days: Number(b.balance_days),
          months_unaccrued: months,
          accrual_pending_days: pending,
          available_days: Number(b.balance_days) + pending,
        };
      }),
    };
  },
});

export const accrueLeave = defineTool({
  name: 'accrue_leave',
  description: `Post the annual leave accrued since the last posting: ${R.accrualDaysPerMonth} days per whole month worked. Returns the new balance.`,
  input: { employee_id: employeeId },
  readOnly: false,
  async handler(ctx, args) {
    const annual = (await balances(ctx, args.employee_id)).find((b) => b.leave_type === 'annual');
    if (!annual) throw new ToolRejection(`Employee ${args.employee_id} has no annual leave balance.`);
    const months = monthsUnaccrued(String(annual.accrued_through), ctx.now);
    if (months === 0) throw new ToolRejection('Nothing to accrue: the balance is accrued up to date.');
    const through = isoDate(addDays(new Date(`${String(annual.accrued_through)}T00:00:00Z`), months * R.daysPerMonth));
    const balance = Number(annual.balance_days) + months * R.accrualDaysPerMonth;
    await ctx.db.query(
      "UPDATE leave_balances SET balance_days = $2, accrued_through = $3 WHERE employee_id = $1 AND leave_type = 'annual'",
      [args.employee_id, balance, through],
    );
    await writeAudit(ctx, { entityType: 'leave_balance', entityId: args.employee_id, action: 'accrue' });
    return { employee_id: args.employee_id, leave_type: 'annual', months_accrued: months, balance_days: balance };
  },
});

export const submitLeaveRequest = defineTool({
  name: 'submit_leave_request',
  miniDescription: 'Submit a leave request.',
  description:
    'Submit a leave request (status pending) for an employee: the leave type, the number of days, and in how many days it starts. Pass the approval_id of a manager exception when the policy requires one. Returns the request_id.',
  input: {
    employee_id: employeeId,
    leave_type: z.enum(LEAVE_TYPES).describe('annual or sick.'),
    days: z.number().positive().describe('Working days of leave.'),
    starts_in_days: z.number().int().min(1).describe('In how many days the leave starts.'),
    approval_id: z.string().optional().describe('A manager exception approval, when the days exceed the balance.'),
    reason: z.string().optional().describe('The reason the employee gives (confidential).'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const employee = await requireEmployee(ctx, args.employee_id);
    if (employee.status === 'terminated') throw new ToolRejection(`Employee ${args.employee_id} has left the firm.`);
    if (args.approval_id !== undefined) await requireApprovalOf(ctx, args.approval_id, args.employee_id);
    const id = await ctx.nextId('leave');
    await ctx.db.query(
      "INSERT INTO leave_requests (request_id, employee_id, leave_type, start_date, days, reason, status, approval_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)",
      [
        id,
        args.employee_id,
        args.leave_type,
        isoDate(addDays(ctx.now, args.starts_in_days)),
        args.days,
        args.reason ?? '',
        args.approval_id ?? null,
        ctx.now,
      ],
    );
    await writeAudit(ctx, { entityType: 'employee', entityId: args.employee_id, action: 'submit_leave' });
    return { request_id: id, status: 'pending' };
  },
});

export const getLeaveRequest = defineTool({
  name: 'get_leave_request',
  description:
    "Get a leave request: employee_id, the employee's manager_id, type, starts_in_days, days, status, approval_id, whether it was deducted, and the (confidential) reason.",
  input: { request_id: requestId },
  readOnly: true,
  async handler(ctx, args) {
    const r = await selectOne(
      ctx.db,
      "SELECT l.request_id, l.employee_id, e.manager_id, l.leave_type, to_char(l.start_date, 'YYYY-MM-DD') AS start_date, l.days, l.status, l.approval_id, l.deducted, l.reason FROM leave_requests l JOIN employees e USING (employee_id) WHERE l.request_id = $1",
      [args.request_id],
      `No leave request ${args.request_id}.`,
    );
    return {
      ...r,
      days: Number(r.days),
      starts_in_days: daysBetween(ctx.now, new Date(`${String(r.start_date)}T23:59:59Z`)),
    };
  },
});

export const approveLeaveRequest = defineTool({
  name: 'approve_leave_request',
  description:
    'Approve a pending leave request on behalf of the approving manager. The balance is not deducted by this tool: post the deduction with post_leave_deduction.',
  input: { request_id: requestId, approver_id: employeeId.describe('The approving manager.') },
  readOnly: false,
  async handler(ctx, args) {
    const r = await requireRequest(ctx, args.request_id);
    if (r.status !== 'pending')
      throw new ToolRejection(`Leave request ${args.request_id} is ${String(r.status)}, not pending.`);
    await requireEmployee(ctx, args.approver_id);
    await ctx.db.query("UPDATE leave_requests SET status = 'approved', decided_by = $2 WHERE request_id = $1", [
      args.request_id,
      args.approver_id,
    ]);
    await writeAudit(ctx, { entityType: 'leave_request', entityId: args.request_id, action: 'approve' });
    return { request_id: args.request_id, status: 'approved' };
  },
});

export const postLeaveDeduction = defineTool({
  name: 'post_leave_deduction',
  description:
    "Deduct an approved leave request's days from the employee's balance of its type. Each request is deducted once.",
  input: { request_id: requestId },
  readOnly: false,
  async handler(ctx, args) {
    const r = await requireRequest(ctx, args.request_id);
    if (r.status !== 'approved')
      throw new ToolRejection(
        `Leave request ${args.request_id} is ${String(r.status)}; only approved requests are deducted.`,
      );
    if (r.deducted) throw new ToolRejection(`Leave request ${args.request_id} is already deducted.`);
    const updated = await ctx.db.query(
      'UPDATE leave_balances SET balance_days = balance_days - $3 WHERE employee_id = $1 AND leave_type = $2',
      [r.employee_id, r.leave_type, r.days],
    );
    if (updated.rowCount === 0)
      throw new ToolRejection(`Employee ${String(r.employee_id)} has no ${String(r.leave_type)} balance.`);
    await ctx.db.query('UPDATE leave_requests SET deducted = true WHERE request_id = $1', [args.request_id]);
    await writeAudit(ctx, { entityType: 'leave_request', entityId: args.request_id, action: 'deduct' });
    return { request_id: args.request_id, deducted: Number(r.days) };
  },
});

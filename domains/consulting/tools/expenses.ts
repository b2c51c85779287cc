import { defineTool, selectOne, toCents, ToolRejection, writeAudit, z, type ToolContext } from 'finalstate/domain';
import { CONSULTING_RULES } from '../policy.js';
import { EXPENSE_CATEGORIES, EXPENSE_REJECTIONS } from '../schema.js';
import { employeeId, requireApprovalOf, requireEmployee } from './employees.js';

const claimId = z.string().describe('The expense claim id, e.g. EXP-7000.');

async function requireClaim(ctx: ToolContext, id: string) {
  return selectOne(
    ctx.db,
    'SELECT c.*, e.grade, e.manager_id FROM expense_claims c JOIN employees e USING (employee_id) WHERE c.claim_id = $1',
    [id],
    `No expense claim ${id}. Check the id with the employee.`,
  );
}

async function requireSubmitted(ctx: ToolContext, id: string) {
  const claim = await requireClaim(ctx, id);
  if (claim.status !== 'submitted')
    throw new ToolRejection(`Expense claim ${id} is ${String(claim.status)}; only submitted claims can be decided.`);
  return claim;
}

export const getExpenseClaim = defineTool({
  name: 'get_expense_claim',
  miniDescription: 'Get an expense claim.',
  description:
    "Get an expense claim: employee_id, the employee's grade, grade_limit and manager_id, engagement, category, amount, receipt_attached and status.",
  input: { claim_id: claimId },
  readOnly: true,
  async handler(ctx, args) {
    const c = await requireClaim(ctx, args.claim_id);
    return {
      claim_id: c.claim_id,
      employee_id: c.employee_id,
      grade: c.grade,
      grade_limit: CONSULTING_RULES.expenseLimit[String(c.grade)],
      manager_id: c.manager_id,
      engagement_id: c.engagement_id,
      category: c.category,
      amount: Number(c.amount),
      receipt_attached: c.receipt_attached,
      status: c.status,
    };
  },
});

export const fileExpenseClaim = defineTool({
  name: 'file_expense_claim',
  description:
    'File an expense claim (status submitted) for an employee. Returns the claim_id; approve or route it afterwards as the policy says.',
  input: {
    employee_id: employeeId,
    category: z.enum(EXPENSE_CATEGORIES).describe('What the money was spent on.'),
    amount: z.number().positive().describe('Dollars, to the cent.'),
    receipt_attached: z.boolean().describe('Whether the employee has a receipt for it.'),
    engagement_id: z.string().optional().describe('The client engagement the expense is billed to, if any.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    await requireEmployee(ctx, args.employee_id);
    if (args.engagement_id !== undefined)
      await selectOne(
        ctx.db,
        'SELECT 1 AS found FROM engagements WHERE engagement_id = $1',
        [args.engagement_id],
        `No engagement ${args.engagement_id}.`,
      );
    const id = await ctx.nextId('expense');
    await ctx.db.query(
      "INSERT INTO expense_claims (claim_id, employee_id, engagement_id, category, amount, receipt_attached, status, created_at) VALUES ($1, $2, $3, $4, $5, $6, 'submitted', $7)",
      [
        id,
        args.employee_id,
        args.engagement_id ?? null,
        args.category,
        toCents(args.amount) / 100,
        args.receipt_attached,
        ctx.now,
      ],
    );
    await writeAudit(ctx, { entityType: 'employee', entityId: args.employee_id, action: 'file_expense' });
    return { claim_id: id, status: 'submitted' };
  },
});

export const approveExpenseClaim = defineTool({
  name: 'approve_expense_claim',
  miniDescription: 'Approve an expense claim.',
  description:
    "Approve a submitted expense claim. Above the grade's limit, pass the approval_id of the manager approval on record.",
  input: {
    claim_id: claimId,
    approval_id: z.string().optional().describe('The manager approval that covers the claim, if one is needed.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const claim = await requireSubmitted(ctx, args.claim_id);
    if (args.approval_id !== undefined) await requireApprovalOf(ctx, args.approval_id, String(claim.employee_id));
    await ctx.db.query("UPDATE expense_claims SET status = 'approved', approval_id = $2 WHERE claim_id = $1", [
      args.claim_id,
      args.approval_id ?? null,
    ]);
    await writeAudit(ctx, { entityType: 'expense', entityId: args.claim_id, action: 'approve' });
    return { claim_id: args.claim_id, status: 'approved' };
  },
});

export const rejectExpenseClaim = defineTool({
  name: 'reject_expense_claim',
  miniDescription: 'Reject an expense claim.',
  description: 'Reject a submitted expense claim with a reason: missing_receipt or not_business.',
  input: { claim_id: claimId, reason: z.enum(EXPENSE_REJECTIONS).describe('Why the claim is rejected.') },
  readOnly: false,
  async handler(ctx, args) {
    await requireSubmitted(ctx, args.claim_id);
    await ctx.db.query("UPDATE expense_claims SET status = 'rejected', rejection_reason = $2 WHERE claim_id = $1", [
      args.claim_id,
      args.reason,
    ]);
    await writeAudit(ctx, { entityType: 'expense', entityId: args.claim_id, action: 'reject' });
    return { claim_id: args.claim_id, status: 'rejected', reason: args.reason };
  },
});

export const routeExpenseToManager = defineTool({
  name: 'route_expense_to_manager',
  miniDescription: 'Send an expense claim to the manager.',
  description: "Send a submitted expense claim to the employee's manager for approval (status pending_manager).",
  input: { claim_id: claimId },
  readOnly: false,
  async handler(ctx, args) {
    const claim = await requireSubmitted(ctx, args.claim_id);
    if (!claim.manager_id) throw new ToolRejection(`The employee of claim ${args.claim_id} has no manager on record.`);
    await ctx.db.query("UPDATE expense_claims SET status = 'pending_manager', routed_to = $2 WHERE claim_id = $1", [
      args.claim_id,
      claim.manager_id,
    ]);
    await writeAudit(ctx, { entityType: 'expense', entityId: args.claim_id, action: 'route' });
    return { claim_id: args.claim_id, status: 'pending_manager', routed_to: claim.manager_id };
  },
});

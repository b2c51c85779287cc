import { defineTool, selectJson, selectOne, ToolRejection, writeAudit, z, type ToolContext } from 'finalstate/domain';

export const employeeId = z.string().describe('The employee id, e.g. EMP-104233.');

export async function requireEmployee(ctx: ToolContext, id: string) {
  return selectOne(
    ctx.db,
    'SELECT * FROM employees WHERE employee_id = $1',
    [id],
    `No employee ${id}. Check the id with find_employee_by_email.`,
  );
}

/** An approval id the employee's record holds: the back office refuses one that does not exist or is someone else's. */
export async function requireApprovalOf(ctx: ToolContext, approvalId: string, employee: string) {
  const approval = await selectOne(
    ctx.db,
    'SELECT * FROM manager_approvals WHERE approval_id = $1',
    [approvalId],
    `No manager approval ${approvalId}.`,
  );
  if (approval.employee_id !== employee)
    throw new ToolRejection(`Approval ${approvalId} belongs to ${String(approval.employee_id)}, not ${employee}.`);
  return approval;
}

export const findEmployeeByEmail = defineTool({
  name: 'find_employee_by_email',
  description:
    'Find an employee by work e-mail. Returns the directory entry: employee_id, name, grade, department, manager_id and status (no private data). Use it first to identify who you are talking to.',
  input: { email: z.string().describe('The e-mail address the employee gives.') },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      'SELECT employee_id, full_name, email, grade, department, manager_id, status FROM employees WHERE lower(email) = lower(trim($1))',
      [args.email],
      `No employee with e-mail ${args.email}. Ask them to check the address.`,
    );
  },
});

export const getEmployee = defineTool({
  name: 'get_employee',
  description:
    "Get an employee's full HR record, including confidential fields (salary, home address, date of birth), their direct reports, their equipment and their access grants. Confidential fields may be shown only to the employee themself.",
  input: { employee_id: employeeId },
  readOnly: true,
  async handler(ctx, args) {
    const e = await requireEmployee(ctx, args.employee_id);
    const id = [args.employee_id];
    return {
      ...e,
      direct_reports: await selectJson(
        ctx.db,
        'SELECT employee_id, full_name FROM employees WHERE manager_id = $1 ORDER BY employee_id',
        id,
      ),
      equipment: await selectJson(
        ctx.db,
        'SELECT asset_id, kind, model, status FROM equipment WHERE employee_id = $1 ORDER BY asset_id',
        id,
      ),
      access: await selectJson(
        ctx.db,
        'SELECT grant_id, system, role, status FROM access_grants WHERE employee_id = $1 ORDER BY grant_id',
        id,
      ),
    };
  },
});

export const verifyEmployeeIdentity = defineTool({
  name: 'verify_employee_identity',
  description:
    'Check the date of birth an employee gives against the HR record. Returns verified: true or false. Required before changing the home address.',
  input: {
    employee_id: employeeId,
    date_of_birth: z.string().describe('The date of birth as the employee states it, YYYY-MM-DD.'),
  },
  readOnly: true,
  async handler(ctx, args) {
    const e = await selectOne(
      ctx.db,
      "SELECT to_char(date_of_birth, 'YYYY-MM-DD') AS dob FROM employees WHERE employee_id = $1",
      [args.employee_id],
      `No employee ${args.employee_id}.`,
    );
    return { employee_id: args.employee_id, verified: e.dob === args.date_of_birth.trim() };
  },
});

export const updateHomeAddress = defineTool({
  name: 'update_home_address',
  description:
    "Change an employee's home address on the HR record, exactly as the employee states it. Verify their identity first.",
  input: { employee_id: employeeId, home_address: z.string().min(5).describe('The new home address.') },
  readOnly: false,
  async handler(ctx, args) {
    const e = await requireEmployee(ctx, args.employee_id);
    if (String(e.home_address).trim().toLowerCase() === args.home_address.trim().toLowerCase())
      throw new ToolRejection('That is already the address on record.');
    await ctx.db.query('UPDATE employees SET home_address = trim($2) WHERE employee_id = $1', [
      args.employee_id,
      args.home_address,
    ]);
    await writeAudit(ctx, { entityType: 'employee', entityId: args.employee_id, action: 'update_address' });
    return { employee_id: args.employee_id, updated: true };
  },
});

export const listManagerApprovals = defineTool({
  name: 'list_manager_approvals',
  description:
    'List the manager approvals on record for an employee: approval_id, kind (leave_exception, expense, access), approver_id, and what it covers (max_days, max_amount, or system and role).',
  input: { employee_id: employeeId },
  readOnly: true,
  async handler(ctx, args) {
    await requireEmployee(ctx, args.employee_id);
    const approvals = await selectJson(
      ctx.db,
      'SELECT approval_id, kind, approver_id, max_days, max_amount, system, role FROM manager_approvals WHERE employee_id = $1 ORDER BY approval_id',
      [args.employee_id],
    );
    return { employee_id: args.employee_id, approvals };
  },
});

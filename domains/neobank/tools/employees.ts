import { defineTool, selectJson, selectOne, ToolRejection, writeAudit, z, type ToolContext } from 'finalstate/domain';

export const employeeId = z.string().describe('The employee id, e.g. EMP-104233.');

export async function requireEmployee(ctx: ToolContext, id: string) {
  return selectOne(ctx.db, 'SELECT * FROM employees WHERE employee_id = $1', [id], `No employee ${id}. Check the id.`);
}

export const findEmployeeByEmail = defineTool({
  name: 'find_employee_by_email',
  description:
    'Find an employee by work e-mail address. Returns the employee (id, name, role, department, manager_id, status). Use it first to identify who you are talking to.',
  input: { email: z.string().describe('The e-mail address the employee gives.') },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      'SELECT employee_id, full_name, email, role, department_id, manager_id, status FROM employees WHERE lower(email) = lower(trim($1))',
      [args.email],
      `No employee with e-mail ${args.email}. Ask the employee to check the address.`,
    );
  },
});

export const verifyEmployeeIdentity = defineTool({
  name: 'verify_employee_identity',
  description:
    'Check the employee number an employee gives (from their badge) against the one on file. Returns verified: true or false. Required before an MFA reset.',
  input: {
    employee_id: employeeId,
    employee_number: z.string().describe('The employee number as the employee states it, e.g. E-104233.'),
  },
  readOnly: true,
  async handler(ctx, args) {
    const employee = await requireEmployee(ctx, args.employee_id);
    return {
      employee_id: args.employee_id,
      verified: String(employee.employee_number).toLowerCase() === args.employee_number.trim().toLowerCase(),
    };
  },
});

export const getEmployee = defineTool({
  name: 'get_employee',
  description:
    "Get an employee's IT record: role, department, manager (manager_id), status, MFA state, devices (device_id, kind, model, asset_tag, encrypted, status), active access grants (grant_id, system_id, level), active software licences (licence_id, product_id), incidents and open access requests.",
  input: { employee_id: employeeId },
  readOnly: true,
  async handler(ctx, args) {
    const e = await requireEmployee(ctx, args.employee_id);
    const id = [args.employee_id];
    return {
      employee_id: e.employee_id,
      full_name: e.full_name,
      role: e.role,
      department_id: e.department_id,
      manager_id: e.manager_id,
      status: e.status,
      mfa_enrolled: e.mfa_enrolled,
      devices: await selectJson(
        ctx.db,
        'SELECT device_id, kind, model, asset_tag, encrypted, status FROM devices WHERE employee_id = $1 ORDER BY device_id',
        id,
      ),
      access_grants: await selectJson(
        ctx.db,
        "SELECT grant_id, system_id, level FROM access_grants WHERE employee_id = $1 AND status = 'active' ORDER BY grant_id",
        id,
      ),
      licences: await selectJson(
        ctx.db,
        "SELECT licence_id, product_id FROM software_licences WHERE employee_id = $1 AND status = 'active' ORDER BY licence_id",
        id,
      ),
      incidents: await selectJson(
        ctx.db,
        'SELECT incident_id, kind, severity, status FROM incidents WHERE employee_id = $1 ORDER BY incident_id',
        id,
      ),
      open_access_requests: await selectJson(
        ctx.db,
        "SELECT request_id, system_id, level FROM access_requests WHERE employee_id = $1 AND status = 'pending' ORDER BY request_id",
        id,
      ),
    };
  },
});

export const resetMfa = defineTool({
  name: 'reset_mfa',
  description:
    "Reset an employee's multi-factor authentication: removes the enrolled factor so that the employee enrols a new one at the next sign-in. The policy says what must be checked first.",
  input: { employee_id: employeeId },
  readOnly: false,
  async handler(ctx, args) {
    const e = await requireEmployee(ctx, args.employee_id);
    if (e.status !== 'active')
      throw new ToolRejection(
        `Employee ${args.employee_id} is ${String(e.status)}; only active employees can sign in.`,
      );
    await ctx.db.query('UPDATE employees SET mfa_enrolled = false, mfa_reset_at = $2 WHERE employee_id = $1', [
      args.employee_id,
      ctx.now,
    ]);
    await writeAudit(ctx, { entityType: 'employee', entityId: args.employee_id, action: 'mfa_reset' });
    return { employee_id: args.employee_id, mfa_enrolled: false };
  },
});

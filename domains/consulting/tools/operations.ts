import { defineTool, selectJson, selectOne, ToolRejection, writeAudit, z, type ToolContext } from 'finalstate/domain';
import { ACCESS_ROLES, EQUIPMENT_KINDS, SYSTEMS, TIMESHEET_REJECTIONS } from '../schema.js';
import { employeeId, requireApprovalOf, requireEmployee } from './employees.js';

/** Access grants, devices and timesheets: the IT side of the desk and the managers' weekly approvals. */

export const grantAccess = defineTool({
  name: 'grant_access',
  description:
    'Grant an employee access to a system at a role. Pass the approval_id of the manager approval when the policy requires one. Returns the grant_id.',
  input: {
    employee_id: employeeId,
    system: z.enum(SYSTEMS).describe('The system.'),
    role: z.enum(ACCESS_ROLES).describe('The access level.'),
    approval_id: z.string().optional().describe('The manager approval that covers this access, if one is needed.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    await requireEmployee(ctx, args.employee_id);
    if (args.approval_id !== undefined) await requireApprovalOf(ctx, args.approval_id, args.employee_id);
    const held = await selectJson(
      ctx.db,
      "SELECT grant_id FROM access_grants WHERE employee_id = $1 AND system = $2 AND role = $3 AND status = 'active'",
      [args.employee_id, args.system, args.role],
    );
    if (held.length)
      throw new ToolRejection(
        `Employee ${args.employee_id} already has ${args.role} access to ${args.system} (${String(held[0]!.grant_id)}).`,
      );
    const id = await ctx.nextId('grant');
    await ctx.db.query(
      "INSERT INTO access_grants (grant_id, employee_id, system, role, status, approval_id, granted_at) VALUES ($1, $2, $3, $4, 'active', $5, $6)",
      [id, args.employee_id, args.system, args.role, args.approval_id ?? null, ctx.now],
    );
    await writeAudit(ctx, {
      entityType: 'employee',
      entityId: args.employee_id,
      action: `grant:${args.system}:${args.role}`,
    });
    return { grant_id: id, status: 'active' };
  },
});

const assetId = z.string().describe('The asset tag, e.g. AST-104233-1.');

export const listEquipmentStock = defineTool({
  name: 'list_equipment_stock',
  description:
    'List the in-stock units of one kind of device (laptop, monitor, phone, headset), in the order they are to be handed out.',
  input: { kind: z.enum(EQUIPMENT_KINDS).describe('The kind of device.') },
  readOnly: true,
  async handler(ctx, args) {
    const units = await selectJson(
      ctx.db,
      "SELECT asset_id, kind, model, to_char(purchased_on, 'YYYY-MM-DD') AS purchased_on FROM equipment WHERE kind = $1 AND status = 'in_stock' ORDER BY asset_id",
      [args.kind],
    );
    return { kind: args.kind, units };
  },
});

async function requireAsset(ctx: ToolContext, id: string) {
  return selectOne(ctx.db, 'SELECT * FROM equipment WHERE asset_id = $1', [id], `No asset ${id}.`);
}

export const reportEquipmentFault = defineTool({
  name: 'report_equipment_fault',
  description:
    "Report an assigned device as faulty: it goes to repair (status repair) and leaves the employee's equipment.",
  input: { asset_id: assetId },
  readOnly: false,
  async handler(ctx, args) {
    const asset = await requireAsset(ctx, args.asset_id);
    if (asset.status !== 'assigned')
      throw new ToolRejection(`Asset ${args.asset_id} is ${String(asset.status)}, not assigned to anyone.`);
    await ctx.db.query("UPDATE equipment SET status = 'repair', employee_id = NULL WHERE asset_id = $1", [
      args.asset_id,
    ]);
    await writeAudit(ctx, { entityType: 'asset', entityId: args.asset_id, action: 'fault' });
    return { asset_id: args.asset_id, status: 'repair' };
  },
});

export const assignEquipment = defineTool({
  name: 'assign_equipment',
  description: 'Hand an in-stock device to an employee (status assigned).',
  input: { asset_id: assetId, employee_id: employeeId },
  readOnly: false,
  async handler(ctx, args) {
    const asset = await requireAsset(ctx, args.asset_id);
    if (asset.status !== 'in_stock')
      throw new ToolRejection(`Asset ${args.asset_id} is ${String(asset.status)}, not in stock.`);
    await requireEmployee(ctx, args.employee_id);
    await ctx.db.query("UPDATE equipment SET status = 'assigned', employee_id = $2 WHERE asset_id = $1", [
      args.asset_id,
      args.employee_id,
    ]);
    await writeAudit(ctx, { entityType: 'asset', entityId: args.asset_id, action: 'assign' });
    return { asset_id: args.asset_id, employee_id: args.employee_id, status: 'assigned' };
  },
});

const timesheetId = z.string().describe('The timesheet id, e.g. TS-104233.');

async function requireSubmittedTimesheet(ctx: ToolContext, id: string, approver: string) {
  const ts = await selectOne(ctx.db, 'SELECT * FROM timesheets WHERE timesheet_id = $1', [id], `No timesheet ${id}.`);
  if (ts.status !== 'submitted') throw new ToolRejection(`Timesheet ${id} is ${String(ts.status)}, not submitted.`);
  await requireEmployee(ctx, approver);
  return ts;
}

export const getTimesheet = defineTool({
  name: 'get_timesheet',
  description:
    "Get a timesheet: employee, engagement and the engagement's manager_id, week_start, hours, status, and whether the employee is a member of the engagement.",
  input: { timesheet_id: timesheetId },
  readOnly: true,
  async handler(ctx, args) {
    const ts = await selectOne(
      ctx.db,
      `SELECT t.timesheet_id, t.employee_id, t.engagement_id, g.client_name, g.manager_id AS engagement_manager_id, to_char(t.week_start, 'YYYY-MM-DD') AS week_start, t.hours, t.status,
              EXISTS (SELECT 1 FROM engagement_members m WHERE m.engagement_id = t.engagement_id AND m.employee_id = t.employee_id) AS is_engagement_member
         FROM timesheets t JOIN engagements g USING (engagement_id) WHERE t.timesheet_id = $1`,
      [args.timesheet_id],
      `No timesheet ${args.timesheet_id}.`,
    );
    return { ...ts, hours: Number(ts.hours) };
  },
});

export const approveTimesheet = defineTool({
  name: 'approve_timesheet',
  description: 'Approve a submitted timesheet on behalf of the deciding manager.',
  input: { timesheet_id: timesheetId, approver_id: employeeId.describe('The deciding manager.') },
  readOnly: false,
  async handler(ctx, args) {
    await requireSubmittedTimesheet(ctx, args.timesheet_id, args.approver_id);
    await ctx.db.query("UPDATE timesheets SET status = 'approved', decided_by = $2 WHERE timesheet_id = $1", [
      args.timesheet_id,
      args.approver_id,
    ]);
    await writeAudit(ctx, { entityType: 'timesheet', entityId: args.timesheet_id, action: 'approve' });
    return { timesheet_id: args.timesheet_id, status: 'approved' };
  },
});

export const rejectTimesheet = defineTool({
  name: 'reject_timesheet',
  description:
    'Reject a submitted timesheet with a reason (over_hours_limit, not_engagement_member) on behalf of the deciding manager.',
  input: {
    timesheet_id: timesheetId,
    approver_id: employeeId.describe('The deciding manager.'),
    reason: z.enum(TIMESHEET_REJECTIONS).describe('Why it is rejected.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    await requireSubmittedTimesheet(ctx, args.timesheet_id, args.approver_id);
    await ctx.db.query(
      "UPDATE timesheets SET status = 'rejected', decided_by = $2, rejection_reason = $3 WHERE timesheet_id = $1",
      [args.timesheet_id, args.approver_id, args.reason],
    );
    await writeAudit(ctx, { entityType: 'timesheet', entityId: args.timesheet_id, action: 'reject' });
    return { timesheet_id: args.timesheet_id, status: 'rejected', reason: args.reason };
  },
});

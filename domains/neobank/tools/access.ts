import { defineTool, selectJson, selectOne, ToolRejection, writeAudit, z, type ToolContext } from 'finalstate/domain';
import { ACCESS_LEVELS, APPROVER_ROLES } from '../schema.js';
import { SECURITY_LEAD } from '../seed.js';
import { employeeId, requireEmployee } from './employees.js';

const requestId = z.string().describe('The access request id, e.g. REQ-104233.');
const systemId = z.string().describe('The system id, e.g. SYS-DWH.');

async function requireRequest(ctx: ToolContext, id: string) {
  return selectOne(
    ctx.db,
    'SELECT * FROM access_requests WHERE request_id = $1',
    [id],
    `No access request ${id}. Check the id.`,
  );
}

/** Approval ids name the request and the approver role, so the order approvals are requested in does not matter. */
export const approvalId = (request: string, role: string) => `${request}:${role}`;

interface RequestView {
  request_id: string;
  status: string;
  level: string;
  system: { sensitivity: string };
  role_entitlement: string | null;
  approvals: { approver_role: string; decision: string }[];
}

/** The mini profile's request: what deciding it needs. */
function miniRequest(result: unknown): unknown {
  const r = result as RequestView;
  return {
    request_id: r.request_id,
    status: r.status,
    level: r.level,
    sensitivity: r.system.sensitivity,
    role_max_level: r.role_entitlement,
    approvals: r.approvals.map((a) => `${a.approver_role}:${a.decision}`),
  };
}

export const getAccessRequest = defineTool({
  name: 'get_access_request',
  miniDescription: 'Get an access request.',
  description:
    "Get an access request: the level asked and its status, the employee (role, manager_id, status), the system (sensitivity, data_owner_id), the role's entitlement on that system (role_entitlement: the highest level the role may hold, null for none) and the approvals on record (approver_role, approver_id, decision requested, approved or rejected).",
  input: { request_id: requestId },
  readOnly: true,
  miniResult: miniRequest,
  async handler(ctx, args) {
    const r = await requireRequest(ctx, args.request_id);
    const employee = await selectOne(
      ctx.db,
      'SELECT employee_id, full_name, role, department_id, manager_id, status FROM employees WHERE employee_id = $1',
      [r.employee_id],
      `No employee ${String(r.employee_id)}.`,
    );
    const system = await selectOne(
      ctx.db,
      'SELECT system_id, name, sensitivity, data_owner_id FROM systems WHERE system_id = $1',
      [r.system_id],
      `No system ${String(r.system_id)}.`,
    );
    const [entitlement] = await selectJson(
      ctx.db,
      'SELECT max_level FROM role_entitlements WHERE role = $1 AND system_id = $2',
      [employee.role, r.system_id],
    );
    const approvals = await selectJson(
      ctx.db,
      'SELECT approver_role, approver_id, decision FROM change_approvals WHERE request_id = $1 ORDER BY approver_role',
      [args.request_id],
    );
    return {
      request_id: r.request_id,
      status: r.status,
      level: r.level,
      employee,
      system,
      role_entitlement: entitlement?.max_level ?? null,
      approvals,
    };
  },
});

export const listSystems = defineTool({
  name: 'list_systems',
  description:
    "List the bank's systems (system_id, name, sensitivity, data_owner_id) with the highest level the given role is entitled to on each (max_level, null for none).",
  input: { role: z.string().describe("The employee's role, e.g. data_analyst.") },
  readOnly: true,
  async handler(ctx, args) {
    const systems = await selectJson(
      ctx.db,
      'SELECT s.system_id, s.name, s.sensitivity, s.data_owner_id, e.max_level FROM systems s LEFT JOIN role_entitlements e ON e.system_id = s.system_id AND e.role = $1 ORDER BY s.system_id',
      [args.role],
    );
    return { role: args.role, systems };
  },
});

export const submitAccessRequest = defineTool({
  name: 'submit_access_request',
  description:
    'Submit an access request (status pending) for an employee: the system and the level. Returns the new request_id. It grants nothing: approvals come first.',
  input: {
    employee_id: employeeId,
    system_id: systemId,
    level: z.enum(ACCESS_LEVELS).describe('The access level asked.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const e = await requireEmployee(ctx, args.employee_id);
    if (e.status !== 'active') throw new ToolRejection(`Employee ${args.employee_id} is ${String(e.status)}.`);
    await selectOne(
      ctx.db,
      'SELECT 1 AS found FROM systems WHERE system_id = $1',
      [args.system_id],
      `No system ${args.system_id}. Use list_systems.`,
    );
    const [open] = await selectJson(
      ctx.db,
      "SELECT request_id FROM access_requests WHERE employee_id = $1 AND system_id = $2 AND status = 'pending'",
      [args.employee_id, args.system_id],
    );
    if (open)
      throw new ToolRejection(
        `Employee ${args.employee_id} already has pending request ${String(open.request_id)} for ${args.system_id}.`,
      );
    const id = await ctx.nextId('request');
    await ctx.db.query(
      "INSERT INTO access_requests (request_id, employee_id, system_id, level, status, created_at) VALUES ($1, $2, $3, $4, 'pending', $5)",
      [id, args.employee_id, args.system_id, args.level, ctx.now],
    );
    await writeAudit(ctx, { entityType: 'access_request', entityId: id, action: 'submit' });
    return { request_id: id, status: 'pending' };
  },
});

export const requestApproval = defineTool({
  name: 'request_approval',
  miniDescription: 'Ask an approver to approve a request.',
  description:
    "Ask the approver of a role to approve a pending access request (records decision requested): manager is the employee's manager, data_owner the system's data owner, security_lead the bank's security lead.",
  input: { request_id: requestId, approver_role: z.enum(APPROVER_ROLES).describe('Which approver to ask.') },
  readOnly: false,
  async handler(ctx, args) {
    const r = await requireRequest(ctx, args.request_id);
    if (r.status !== 'pending') throw new ToolRejection(`Request ${args.request_id} is ${String(r.status)}.`);
    const [existing] = await selectJson(
      ctx.db,
      'SELECT decision FROM change_approvals WHERE request_id = $1 AND approver_role = $2',
      [args.request_id, args.approver_role],
    );
    if (existing)
      throw new ToolRejection(
        `The ${args.approver_role} approval of ${args.request_id} is already on record (${String(existing.decision)}).`,
      );
    let approver: string;
    if (args.approver_role === 'manager') {
      const e = await requireEmployee(ctx, String(r.employee_id));
      if (!e.manager_id) throw new ToolRejection(`Employee ${String(r.employee_id)} has no manager on record.`);
      approver = String(e.manager_id);
    } else if (args.approver_role === 'data_owner') {
      approver = String(
        (
          await selectOne(
            ctx.db,
            'SELECT data_owner_id FROM systems WHERE system_id = $1',
            [r.system_id],
            `No system ${String(r.system_id)}.`,
          )
        ).data_owner_id,
      );
    } else approver = SECURITY_LEAD.employee_id;
    await ctx.db.query(
      "INSERT INTO change_approvals (approval_id, request_id, approver_id, approver_role, decision) VALUES ($1, $2, $3, $4, 'requested')",
      [approvalId(args.request_id, args.approver_role), args.request_id, approver, args.approver_role],
    );
    await writeAudit(ctx, {
      entityType: 'access_request',
      entityId: args.request_id,
      action: `request_approval:${args.approver_role}`,
    });
    return {
      request_id: args.request_id,
      approver_role: args.approver_role,
      approver_id: approver,
      decision: 'requested',
    };
  },
});

export const grantAccess = defineTool({
  name: 'grant_access',
  miniDescription: 'Grant the access of a request.',
  description:
    "Fulfil a pending access request: grants the employee the given level on the request's system and marks the request fulfilled. The policy says which approvals must be on record and which level to grant.",
  input: { request_id: requestId, level: z.enum(ACCESS_LEVELS).describe('The level granted.') },
  readOnly: false,
  async handler(ctx, args) {
    const r = await requireRequest(ctx, args.request_id);
    if (r.status !== 'pending')
      throw new ToolRejection(
        `Request ${args.request_id} is ${String(r.status)}; only pending requests can be fulfilled.`,
      );
    const e = await requireEmployee(ctx, String(r.employee_id));
    if (e.status !== 'active') throw new ToolRejection(`Employee ${String(r.employee_id)} is ${String(e.status)}.`);
    const id = await ctx.nextId('grant');
    await ctx.db.query(
      "INSERT INTO access_grants (grant_id, employee_id, system_id, level, request_id, status, granted_at) VALUES ($1, $2, $3, $4, $5, 'active', $6)",
      [id, r.employee_id, r.system_id, args.level, args.request_id, ctx.now],
    );
    await ctx.db.query("UPDATE access_requests SET status = 'fulfilled' WHERE request_id = $1", [args.request_id]);
    await writeAudit(ctx, { entityType: 'access_request', entityId: args.request_id, action: `grant:${args.level}` });
    return { grant_id: id, request_id: args.request_id, system_id: r.system_id, level: args.level };
  },
});

export const revokeAccess = defineTool({
  name: 'revoke_access',
  description: 'Revoke an active access grant (grant_id from get_employee).',
  input: { grant_id: z.string().describe('The grant id, e.g. GRT-104233-1.') },
  readOnly: false,
  async handler(ctx, args) {
    const g = await selectOne(
      ctx.db,
      'SELECT status FROM access_grants WHERE grant_id = $1',
      [args.grant_id],
      `No access grant ${args.grant_id}.`,
    );
    if (g.status !== 'active') throw new ToolRejection(`Grant ${args.grant_id} is already revoked.`);
    await ctx.db.query("UPDATE access_grants SET status = 'revoked', revoked_at = $2 WHERE grant_id = $1", [
      args.grant_id,
      ctx.now,
    ]);
    await writeAudit(ctx, { entityType: 'access_grant', entityId: args.grant_id, action: 'revoke' });
    return { grant_id: args.grant_id, status: 'revoked' };
  },
});

import type { TaskInput, TaskInvariant } from 'finalstate/domain';
import { NEOBANK_RULES, type ApproverRole } from './policy.js';
import { ENTITLEMENTS, PRODUCTS, SYSTEMS, type Level, type Role } from './seed.js';

type Row = Record<string, unknown>;
const rows = (task: TaskInput, table: string): Row[] => task.init?.upsert?.[table] ?? [];
const typeOf = (task: TaskInput) => task.tags?.[0];
const calls = (task: TaskInput, tool: string) => task.golden.filter((c) => c.tool === tool);
const employee = (task: TaskInput, id: unknown) => rows(task, 'employees').find((e) => e.employee_id === id);
const systemOf = (id: unknown) => SYSTEMS.find((s) => s.system_id === id);
const entitlement = (role: unknown, systemId: unknown): Level | undefined =>
  ENTITLEMENTS[role as Role]?.[String(systemId)];

/** The employee the conversation is with (full profile: the e-mail identified first). */
function party(task: TaskInput): Row | undefined {
  const email = calls(task, 'find_employee_by_email')[0]?.arguments.email;
  return rows(task, 'employees').find((e) => e.email === email);
}

function requiredFor(request: Row): ApproverRole[] {
  return NEOBANK_RULES.requiredApprovers(systemOf(request.system_id)!.sensitivity, request.level as Level);
}

const approvalsOf = (task: TaskInput, requestId: unknown) =>
  rows(task, 'change_approvals').filter((a) => a.request_id === requestId);

/** Rules of the policy manual that every generated task must respect; `finalstate tasks check` samples them. */
export const neobankInvariants: TaskInvariant[] = [
  {
    name: 'grants-need-approvals-and-entitlement',
    description:
      'every grant_access grants exactly the level of a pending request, within the role entitlement, with every required approval approved on record and none rejected (rules 2.1-2.3, 3.1, 3.2)',
    check(task) {
      for (const c of calls(task, 'grant_access')) {
        const request = rows(task, 'access_requests').find((r) => r.request_id === c.arguments.request_id);
        if (!request || request.status !== 'pending')
          return `grants ${String(c.arguments.request_id)}, which is no pending request of the task`;
        if (c.arguments.level !== request.level)
          return `grants ${String(c.arguments.level)} on a request for ${String(request.level)}`;
        const role = employee(task, request.employee_id)?.role;
        if (!NEOBANK_RULES.withinEntitlement(request.level as Level, entitlement(role, request.system_id)))
          return `grants ${String(request.level)} above the ${String(role)} entitlement`;
        const approvals = approvalsOf(task, request.request_id);
        if (approvals.some((a) => a.decision === 'rejected')) return 'grants a request with a rejected approval';
        const missing = requiredFor(request).filter(
          (r) => !approvals.some((a) => a.approver_role === r && a.decision === 'approved'),
        );
        if (missing.length > 0) return `grants without the approval of ${missing.join(', ')}`;
      }
    },
  },
  {
    name: 'approvals-asked-are-the-missing-ones',
    description:
      'request_approval asks exactly the required approver roles with no record yet, and a task that asks for approvals grants nothing (rule 3.3, 3.5)',
    check(task) {
      const asked = calls(task, 'request_approval');
      if (asked.length > 0 && calls(task, 'grant_access').length > 0)
        return 'asks for approvals and grants in one conversation';
      const byRequest = new Map<string, string[]>();
      for (const c of asked)
        byRequest.set(String(c.arguments.request_id), [
          ...(byRequest.get(String(c.arguments.request_id)) ?? []),
          String(c.arguments.approver_role),
        ]);
      for (const [requestId, roles] of byRequest) {
        const existing = rows(task, 'access_requests').find((r) => r.request_id === requestId);
        const submitted = calls(task, 'submit_access_request')[0]?.arguments;
        const request = existing ?? (submitted ? { ...submitted, request_id: requestId } : undefined);
        if (!request) return `asks approvals of unknown request ${requestId}`;
        const recorded = approvalsOf(task, requestId).map((a) => a.approver_role);
        const expected = requiredFor(request).filter((r) => !recorded.includes(r));
        if ([...roles].sort().join() !== [...expected].sort().join())
          return `asks ${roles.join(', ')} on ${requestId}; the missing approvers are ${expected.join(', ') || 'none'}`;
      }
      if (task.tags?.includes('approval-required') && asked.length === 0)
        return 'an approval-required task asks no approval';
    },
  },
  {
    name: 'least-privilege',
    description:
      'access and licences are refused exactly when the role or department is not entitled; submitted requests stay within the entitlement (rules 2.1, 2.2, 3.5, 7.1)',
    check(task) {
      if (typeOf(task) === 'access_above_role_refused') {
        const request = rows(task, 'access_requests')[0]!;
        const role = employee(task, request.employee_id)?.role;
        if (NEOBANK_RULES.withinEntitlement(request.level as Level, entitlement(role, request.system_id)))
          return `refuses ${String(request.level)}, which the ${String(role)} role is entitled to`;
      }
      for (const c of calls(task, 'submit_access_request')) {
        const role = employee(task, c.arguments.employee_id)?.role;
        if (!NEOBANK_RULES.withinEntitlement(c.arguments.level as Level, entitlement(role, c.arguments.system_id)))
          return `submits ${String(c.arguments.level)} above the ${String(role)} entitlement`;
      }
      const allowed = (employeeId: unknown, productId: unknown) =>
        PRODUCTS.find((p) => p.product_id === productId)?.allowed_departments.includes(
          String(employee(task, employeeId)?.department_id),
        );
      for (const c of calls(task, 'assign_licence'))
        if (!allowed(c.arguments.employee_id, c.arguments.product_id))
          return `assigns ${String(c.arguments.product_id)} to a department not entitled to it`;
      if (typeOf(task) === 'licence_refused') {
        const product = PRODUCTS.find((p) => task.query.includes(p.name));
        if (!product || allowed(party(task)?.employee_id, product.product_id))
          return `refuses ${product?.name ?? 'an unnamed product'}, which the department is entitled to`;
      }
    },
  },
  {
    name: 'security-incidents-escalated',
    description:
      'a security incident is logged with the severity of rule 5.2 and, in full, escalated to security; no security incident is ever resolved, and a close refusal concerns a security incident (rules 5.1, 5.2)',
    check(task) {
      for (const c of calls(task, 'log_incident')) {
        const kind = c.arguments.kind as (typeof NEOBANK_RULES.securityKinds)[number];
        if (!NEOBANK_RULES.securityKinds.includes(kind)) continue;
        const device = rows(task, 'devices').find((d) => d.device_id === c.arguments.device_id);
        const clicked = /clicked the link/.test(task.query) || /^yes/.test(task.userFacts?.clicked_the_link ?? '');
        const expected = NEOBANK_RULES.severity(kind, { clicked, encrypted: device?.encrypted === true });
        if (c.arguments.severity !== expected)
          return `logs ${kind} as ${String(c.arguments.severity)}; rule 5.2 gives ${expected}`;
        if (
          task.profile === 'full' &&
          !calls(task, 'escalate_ticket').some((e) => e.arguments.team === NEOBANK_RULES.securityTeam)
        )
          return `logs a ${kind} incident without escalating to security`;
        if (task.profile === 'full' && calls(task, 'update_ticket').some((u) => u.arguments.status === 'solved'))
          return 'solves the ticket of a security incident';
      }
      for (const c of calls(task, 'resolve_incident')) {
        const incident = rows(task, 'incidents').find((i) => i.incident_id === c.arguments.incident_id);
        if (!incident || NEOBANK_RULES.securityKinds.includes(incident.kind as never))
          return `resolves ${String(c.arguments.incident_id)}, a security incident`;
      }
      if (
        typeOf(task) === 'incident_close_refused' &&
        !rows(task, 'incidents').some((i) => NEOBANK_RULES.securityKinds.includes(i.kind as never))
      )
        return 'refuses to close an incident that is no security incident';
    },
  },
  {
    name: 'offboarding-by-the-manager',
    description:
      "an offboarding is done only for the leaver's manager and revokes every active grant and licence; it is refused exactly when the requester is not the manager (rules 6.1, 6.2)",
    check(task) {
      if (typeOf(task) !== 'offboarding' && typeOf(task) !== 'offboarding_refused') return;
      const leaverId = calls(task, 'get_employee')[0]?.arguments.employee_id;
      const leaver = employee(task, leaverId);
      const isManager = leaver?.manager_id === party(task)?.employee_id;
      if (typeOf(task) === 'offboarding_refused')
        return isManager ? 'refuses the offboarding asked by the manager' : undefined;
      if (!isManager) return 'offboards for someone who is not the manager';
      const revoked = new Set([
        ...calls(task, 'revoke_access').map((c) => c.arguments.grant_id),
        ...calls(task, 'revoke_licence').map((c) => c.arguments.licence_id),
      ]);
      const active = [
        ...rows(task, 'access_grants').map((g) => g.grant_id),
        ...rows(task, 'software_licences').map((l) => l.licence_id),
      ];
      const kept = active.filter((id) => !revoked.has(id));
      if (kept.length > 0) return `leaves ${kept.join(', ')} active`;
    },
  },
];

import {
  call,
  introduce,
  sqlString,
  userBrief,
  type Assertion,
  type Party,
  type ScenarioContext,
  type TaskDraft,
  type ToolCall,
  FIRST_NAMES,
  LAST_NAMES,
} from 'finalstate/domain';
import { NEOBANK_RULES, type ApproverRole } from '../policy.js';
import {
  ENTITLEMENTS,
  ROLE_DEPARTMENT,
  SECURITY_LEAD,
  SYSTEMS,
  neobankSequences,
  type Level,
  type Role,
  type System,
} from '../seed.js';

type Row = Record<string, unknown>;

export const ROLES = Object.keys(ENTITLEMENTS) as Role[];

const first = (prefix: string, key: keyof typeof neobankSequences) => `${prefix}${neobankSequences[key].start}`;
export const FIRST_TICKET = first(neobankSequences.ticket.prefix, 'ticket');
export const FIRST_REQUEST = first(neobankSequences.request.prefix, 'request');
export const FIRST_GRANT = first(neobankSequences.grant.prefix, 'grant');
export const FIRST_INCIDENT = first(neobankSequences.incident.prefix, 'incident');
export const FIRST_LICENCE = first(neobankSequences.licence.prefix, 'licence');

export interface Employee extends Party {
  first_name: string;
  employee_number: string;
  department_id: string;
  role: Role | 'manager';
  manager_id: string | null;
  status: 'active' | 'leaving';
}

/** The rows of one task: the people, their devices, grants, licences, requests, approvals and incidents. */
export class World {
  employees: Employee[] = [];
  devices: Row[] = [];
  licences: Row[] = [];
  requests: Row[] = [];
  approvals: Row[] = [];
  grants: Row[] = [];
  incidents: Row[] = [];

  constructor(readonly ctx: ScenarioContext) {}

  person(suffix: string, role: Employee['role'], department: string, manager: Employee | null): Employee {
    const { rng, n } = this.ctx;
    const firstName = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    const id = `EMP-${n}${suffix}`;
    const e: Employee = {
      id,
      full_name: `${firstName} ${last}`,
      first_name: firstName,
      email: `${firstName}.${last}.${n}${suffix.toLowerCase()}@ledgerly.example`.toLowerCase(),
      employee_number: `E-${n}${suffix.replace('-', '')}`,
      department_id: department,
      role,
      manager_id: manager?.id ?? null,
      status: 'active',
    };
    this.employees.push(e);
    return e;
  }

  /** An employee of `role` with a manager of the same department. */
  staff(role: Role = this.ctx.rng.pick(ROLES)): { employee: Employee; manager: Employee } {
    const department = ROLE_DEPARTMENT[role];
    const manager = this.person('-M', 'manager', department, null);
    const employee = this.person('', role, department, manager);
    return { employee, manager };
  }

  device(owner: Employee, spec: { kind?: string; encrypted?: boolean; status?: string } = {}): Row {
    const i = this.devices.length + 1;
    const kind = spec.kind ?? 'laptop';
    const model =
      kind === 'laptop'
        ? this.ctx.rng.pick(['MacBook Pro 14', 'ThinkPad X1 Carbon', 'Dell Latitude 7440'])
        : kind === 'phone'
          ? this.ctx.rng.pick(['iPhone 15', 'Pixel 8'])
          : 'YubiKey 5';
    const d = {
      device_id: `DEV-${this.ctx.n}-${i}`,
      employee_id: owner.id,
      kind,
      model,
      asset_tag: `LB${this.ctx.n}${i}`,
      encrypted: spec.encrypted ?? true,
      status: spec.status ?? 'active',
      wiped: false,
      locked: false,
    };
    this.devices.push(d);
    return d;
  }

  grant(owner: Employee, systemId: string, level: Level): Row {
    const g = {
      grant_id: `GRT-${this.ctx.n}-${this.grants.length + 1}`,
      employee_id: owner.id,
      system_id: systemId,
      level,
      request_id: null,
      status: 'active',
      granted_at: '2025-09-01T09:00:00Z',
      revoked_at: null,
    };
    this.grants.push(g);
    return g;
  }

  licence(owner: Employee, productId: string): Row {
    const l = {
      licence_id: `LIC-${this.ctx.n}-${this.licences.length + 1}`,
      product_id: productId,
      employee_id: owner.id,
      status: 'active',
      assigned_at: '2025-09-01T09:00:00Z',
      revoked_at: null,
    };
    this.licences.push(l);
    return l;
  }

  request(owner: Employee, system: System, level: Level): Row {
    const r = {
      request_id: `REQ-${this.ctx.n}`,
      employee_id: owner.id,
      system_id: system.system_id,
      level,
      status: 'pending',
      created_at: '2026-01-05T10:00:00Z',
    };
    this.requests.push(r);
    return r;
  }

  approval(request: Row, role: ApproverRole, decision: 'requested' | 'approved' | 'rejected', manager: Employee): Row {
    const system = SYSTEMS.find((s) => s.system_id === request.system_id)!;
    const approver =
      role === 'manager' ? manager.id : role === 'data_owner' ? system.data_owner_id : SECURITY_LEAD.employee_id;
    const a = {
      approval_id: `${String(request.request_id)}:${role}`,
      request_id: request.request_id,
      approver_id: approver,
      approver_role: role,
      decision,
      decided_at: decision === 'requested' ? null : '2026-01-06T10:00:00Z',
    };
    this.approvals.push(a);
    return a;
  }

  incident(owner: Employee, kind: string, severity: string, device?: Row): Row {
    const i = {
      incident_id: `INC-${this.ctx.n}`,
      employee_id: owner.id,
      device_id: device?.device_id ?? null,
      kind,
      severity,
      status: 'open',
      summary: '',
      created_at: '2026-01-10T10:00:00Z',
    };
    this.incidents.push(i);
    return i;
  }

  init(): TaskDraft['init'] {
    return {
      upsert: {
        employees: this.employees.map((e) => ({
          employee_id: e.id,
          full_name: e.full_name,
          email: e.email,
          employee_number: e.employee_number,
          department_id: e.department_id,
          role: e.role,
          manager_id: e.manager_id,
          status: e.status,
          mfa_enrolled: true,
          mfa_reset_at: null,
        })),
        devices: this.devices,
        software_licences: this.licences,
        access_requests: this.requests,
        change_approvals: this.approvals,
        access_grants: this.grants,
        incidents: this.incidents,
      },
    };
  }
}

export const systemOf = (id: string) => SYSTEMS.find((s) => s.system_id === id)!;
export const LEVELS: Level[] = ['read', 'write', 'admin'];
export const levelsUpTo = (max: Level) => LEVELS.slice(0, LEVELS.indexOf(max) + 1);

/** A system the role is entitled to and a level within the entitlement; site reliability engineers often ask admin. */
export function entitledAsk(ctx: ScenarioContext, role: Role): { system: System; level: Level } {
  const entries = Object.entries(ENTITLEMENTS[role]) as [string, Level][];
  const admin = entries.filter(([, max]) => max === 'admin');
  const [systemId, max] = admin.length > 0 && ctx.rng.chance(0.5) ? ctx.rng.pick(admin) : ctx.rng.pick(entries);
  const level = max === 'admin' && admin.length > 0 && ctx.rng.chance(0.6) ? 'admin' : ctx.rng.pick(levelsUpTo(max));
  return { system: systemOf(systemId), level };
}

export const requiredFor = (system: System, level: Level) => NEOBANK_RULES.requiredApprovers(system.sensitivity, level);
export const priorityOf = (category: string) => NEOBANK_RULES.priority[category]!;

export const persona = (e: Employee) =>
  `${e.full_name}, ${e.role === 'manager' ? 'a manager' : `a ${e.role.replace(/_/g, ' ')}`} at Ledgerly, a digital bank`;

/** One conversation with the service desk: mini looks up and acts; full identifies, looks up, tickets and acts. */
export interface DeskRequest {
  world: World;
  /** Who is talking. */
  party: Employee;
  lookup: ToolCall;
  miniQuery?: string;
  fullQuery: string;
  goal: string;
  facts?: Record<string, string>;
  /** Yes/no answers the user gives when the agent asks (e.g. accepting a cost). */
  decisions?: Record<string, boolean>;
  lookups?: ToolCall[];
  actions: ToolCall[];
  ticket?: { category: string; final: 'solved' | 'pending'; deviceId?: string };
  /** A security escalation: the actions run between create_ticket and escalate_ticket. */
  escalate?: { category: string; team: string; deviceId?: string };
  assertions: Assertion[];
  tags?: string[];
  rubrics?: TaskDraft['rubrics'];
}

function ticketAssertion(
  party: Employee,
  expected: { category: string; status: string; team: string | null; deviceId?: string },
): Assertion {
  return {
    description: `one ${expected.category} ticket, ${expected.status}`,
    sql: `SELECT category, priority, status, assigned_team, device_id FROM tickets WHERE employee_id = ${sqlString(party.id)}`,
    expect: [
      {
        category: expected.category,
        priority: priorityOf(expected.category),
        status: expected.status,
        assigned_team: expected.team,
        device_id: expected.deviceId ?? null,
      },
    ],
  };
}

export function deskDraft(ctx: ScenarioContext, req: DeskRequest): TaskDraft {
  const common = { tags: req.tags ?? [], init: req.world.init(), ...(req.rubrics ? { rubrics: req.rubrics } : {}) };
  if (ctx.profile === 'mini') {
    if (!req.miniQuery) throw new Error(`${req.party.id}: this task type has no mini query`);
    return {
      ...common,
      query: req.miniQuery,
      userContext: userBrief(persona(req.party), req.goal, {}),
      golden: [req.lookup, ...req.actions],
      assertions: req.assertions,
    };
  }
  // A query naming none of the task's ids gets the e-mail in the introduction, so no two tasks ask the same thing.
  const { intro, facts } = req.fullQuery.includes(String(ctx.n))
    ? introduce(ctx.rng, req.party.full_name, req.party.email)
    : { intro: `Hi, this is ${req.party.full_name} (${req.party.email}).`, facts: {} };
  const allFacts = { ...facts, ...req.facts };
  const open = (t: { category: string; deviceId?: string }) =>
    call('create_ticket', {
      employee_id: req.party.id,
      ...(t.deviceId ? { device_id: t.deviceId } : {}),
      category: t.category,
      priority: priorityOf(t.category),
    });
  let writes: ToolCall[] = [];
  let ticketState: Assertion;
  if (req.escalate) {
    writes = [
      open(req.escalate),
      ...req.actions,
      call('escalate_ticket', { ticket_id: FIRST_TICKET, team: req.escalate.team }),
    ];
    ticketState = ticketAssertion(req.party, {
      category: req.escalate.category,
      status: 'hold',
      team: req.escalate.team,
      ...(req.escalate.deviceId ? { deviceId: req.escalate.deviceId } : {}),
    });
  } else if (req.ticket) {
    if (req.actions.length === 0) throw new Error(`${req.party.id}: a ticket without a write`);
    writes = [
      open(req.ticket),
      ...req.actions,
      call('update_ticket', { ticket_id: FIRST_TICKET, status: req.ticket.final }),
    ];
    ticketState = ticketAssertion(req.party, {
      category: req.ticket.category,
      status: req.ticket.final,
      team: null,
      ...(req.ticket.deviceId ? { deviceId: req.ticket.deviceId } : {}),
    });
  } else {
    if (req.actions.length > 0) throw new Error(`${req.party.id}: a full-profile write needs a ticket`);
    ticketState = {
      description: 'no ticket was opened',
      sql: `SELECT count(*)::int AS n FROM tickets WHERE employee_id = ${sqlString(req.party.id)}`,
      expect: [{ n: 0 }],
    };
  }
  return {
    ...common,
    query: `${intro} ${req.fullQuery}`,
    userContext: userBrief(persona(req.party), req.goal, allFacts),
    userFacts: allFacts,
    ...(req.decisions ? { userDecisions: req.decisions } : {}),
    golden: [call('find_employee_by_email', { email: req.party.email }), req.lookup, ...(req.lookups ?? []), ...writes],
    assertions: [...req.assertions, ticketState],
  };
}

export const getRequestCall = (requestId: string) => call('get_access_request', { request_id: requestId });
export const getEmployeeCall = (e: Employee) => call('get_employee', { employee_id: e.id });

export function grantsOf(employee: Employee, expected: Row[]): Assertion {
  return {
    description: `${employee.id}'s active grants`,
    sql: `SELECT system_id, level FROM access_grants WHERE employee_id = ${sqlString(employee.id)} AND status = 'active' ORDER BY system_id, level`,
    expect: expected,
  };
}

export function requestState(requestId: string, status: string): Assertion {
  return {
    description: `request ${requestId} is ${status}`,
    sql: `SELECT status FROM access_requests WHERE request_id = ${sqlString(requestId)}`,
    expect: [{ status }],
  };
}

export function approvalsOf(requestId: string, expected: { approver_role: string; decision: string }[]): Assertion {
  return {
    description: `approvals of ${requestId}`,
    sql: `SELECT approver_role, decision FROM change_approvals WHERE request_id = ${sqlString(requestId)} ORDER BY approver_role`,
    expect: [...expected].sort((a, b) => a.approver_role.localeCompare(b.approver_role)),
  };
}

export function nothingAudited(): Assertion {
  return { description: 'nothing audited', sql: 'SELECT count(*)::int AS n FROM audit_log', expect: [{ n: 0 }] };
}

export { call, sqlString };

/** `k` distinct items of `items` in a seeded order (the PRNG has no shuffle). */
export function sample<T>(rng: ScenarioContext['rng'], items: readonly T[], k: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < k && pool.length > 0) out.push(pool.splice(rng.int(0, pool.length - 1), 1)[0]!);
  return out;
}

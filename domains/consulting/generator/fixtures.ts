import {
  addDays,
  call,
  escalationCalls,
  introduce,
  iso,
  isoDate,
  noTicketAssertion,
  sqlString,
  ticketCalls,
  ticketStateAssertion,
  userBrief,
  type Assertion,
  type Party,
  type Prng,
  type RequestVocabulary,
  type ScenarioContext,
  type TaskDraft,
  type ToolCall,
} from 'finalstate/domain';
import { CONSULTING_RULES } from '../policy.js';
import { MANAGING_PARTNER, consultingSequences } from '../seed.js';

type Row = Record<string, unknown>;
export type Grade = 'analyst' | 'consultant' | 'manager' | 'partner';

const FIRST = [
  'Alex',
  'Sam',
  'Jordan',
  'Noor',
  'Elena',
  'Mateo',
  'Aiko',
  'Femi',
  'Ines',
  'Ravi',
  'Chloe',
  'Oskar',
  'Leila',
  'Diego',
  'Hana',
  'Marek',
  'Dana',
  'Yusuf',
];
const LAST = [
  'Kim',
  'Novak',
  'Silva',
  'Haddad',
  'Rossi',
  'Moreau',
  'Tanaka',
  'Adeyemi',
  'Costa',
  'Iyer',
  'Dubois',
  'Larsen',
  'Farah',
  'Ortiz',
  'Sato',
  'Kowalski',
  'Brennan',
  'Okafor',
];
const STREETS = [
  'Larkspur Lane',
  'Quarry Road',
  'Willow Crescent',
  'Foundry Street',
  'Orchard Close',
  'Beacon Hill',
  'Mill Lane',
  'Juniper Avenue',
];
const TOWNS = ['Bristol', 'Leeds', 'Norwich', 'Bath', 'York', 'Exeter'];
const DEPARTMENTS = ['Strategy', 'Technology', 'Operations', 'Finance Advisory', 'People Advisory'];
export const CLIENTS = [
  'Northwind Foods',
  'Contoso Energy',
  'Fabrikam Health',
  'Tailspin Airways',
  'Woodgrove Bank',
  'Litware Retail',
];

export const FIRST_TICKET = `${consultingSequences.ticket.prefix}${consultingSequences.ticket.start}`;
export const FIRST_LEAVE = `${consultingSequences.leave.prefix}${consultingSequences.leave.start}`;
export const FIRST_EXPENSE = `${consultingSequences.expense.prefix}${consultingSequences.expense.start}`;

export interface Person extends Party {
  first_name: string;
  grade: Grade;
  department: string;
  manager_id: string | null;
  date_of_birth: string;
  salary: number;
  home_address: string;
}

/** Every row a task starts from, upserted parents first. */
export interface World {
  employees: Person[];
  engagements: Row[];
  engagement_members: Row[];
  timesheets: Row[];
  leave_balances: Row[];
  manager_approvals: Row[];
  leave_requests: Row[];
  equipment: Row[];
  expense_claims: Row[];
  access_grants: Row[];
}

export const emptyWorld = (): World => ({
  employees: [],
  engagements: [],
  engagement_members: [],
  timesheets: [],
  leave_balances: [],
  manager_approvals: [],
  leave_requests: [],
  equipment: [],
  expense_claims: [],
  access_grants: [],
});

function birthDate(rng: Prng, now: Date): string {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() - rng.int(24, 60));
  return isoDate(addDays(d, -rng.int(20, 330)));
}

export const addressOf = (rng: Prng) => `${rng.int(2, 98)} ${rng.pick(STREETS)}, ${rng.pick(TOWNS)}`;

/** An employee `EMP-<n><suffix>`; the manager defaults to the managing partner. */
export function addPerson(
  ctx: ScenarioContext,
  world: World,
  spec: { suffix?: string; grade?: Grade; manager?: Person | null; lastName?: string } = {},
): Person {
  const first = ctx.rng.pick(FIRST);
  const last = spec.lastName ?? ctx.rng.pick(LAST);
  const id = `EMP-${ctx.n}${spec.suffix ?? ''}`;
  const grade = spec.grade ?? ctx.rng.pick(['analyst', 'consultant', 'consultant', 'manager'] as const);
  const person: Person = {
    id,
    full_name: `${first} ${last}`,
    first_name: first,
    email: `${first}.${last}.${ctx.n}${spec.suffix?.toLowerCase() ?? ''}@meridian-partners.example`.toLowerCase(),
    grade,
    department: ctx.rng.pick(DEPARTMENTS),
    manager_id: spec.manager === null ? null : (spec.manager?.id ?? MANAGING_PARTNER.employee_id),
    date_of_birth: birthDate(ctx.rng, ctx.now),
    salary:
      { analyst: 52_000, consultant: 78_000, manager: 115_000, partner: 240_000 }[grade] + ctx.rng.int(0, 80) * 250,
    home_address: addressOf(ctx.rng),
  };
  world.employees.push(person);
  return person;
}

/** A requester with a manager of their own (both task rows). */
export function addTeam(ctx: ScenarioContext, world: World, grade?: Grade): { person: Person; manager: Person } {
  const manager = addPerson(ctx, world, { suffix: '-M', grade: 'manager' });
  return {
    person: addPerson(ctx, world, {
      grade: grade ?? ctx.rng.pick(['analyst', 'consultant', 'consultant', 'manager'] as const),
      manager,
    }),
    manager,
  };
}

/** The annual and sick balances; `monthsUnaccrued` whole months of accrual not yet posted. */
export function addBalances(
  ctx: ScenarioContext,
  world: World,
  person: Person,
  annual: number,
  monthsUnaccrued = 0,
): void {
  const through = isoDate(addDays(ctx.now, -(monthsUnaccrued * CONSULTING_RULES.daysPerMonth + ctx.rng.int(2, 25))));
  world.leave_balances.push(
    { employee_id: person.id, leave_type: 'annual', balance_days: annual, accrued_through: through },
    { employee_id: person.id, leave_type: 'sick', balance_days: ctx.rng.int(4, 10), accrued_through: through },
  );
}

export function addApproval(
  ctx: ScenarioContext,
  world: World,
  spec: {
    suffix: string;
    employee: Person;
    approver: string;
    kind: string;
    max_days?: number;
    max_amount?: number;
    system?: string;
    role?: string;
  },
): Row {
  const row = {
    approval_id: `APR-${ctx.n}${spec.suffix}`,
    employee_id: spec.employee.id,
    approver_id: spec.approver,
    kind: spec.kind,
    max_days: spec.max_days ?? null,
    max_amount: spec.max_amount ?? null,
    system: spec.system ?? null,
    role: spec.role ?? null,
    recorded_at: iso(addDays(ctx.now, -ctx.rng.int(1, 10))),
  };
  world.manager_approvals.push(row);
  return row;
}

export function addEngagement(ctx: ScenarioContext, world: World, manager: Person, members: Person[]): Row {
  const row = {
    engagement_id: `ENG-${ctx.n}`,
    client_name: ctx.rng.pick(CLIENTS),
    manager_id: manager.id,
    status: 'active',
  };
  world.engagements.push(row);
  for (const m of members) world.engagement_members.push({ engagement_id: row.engagement_id, employee_id: m.id });
  return row;
}

export function initOf(world: World): TaskDraft['init'] {
  const employees = world.employees.map((p) => ({
    employee_id: p.id,
    full_name: p.full_name,
    email: p.email,
    grade: p.grade,
    department: p.department,
    manager_id: p.manager_id,
    hire_date: '2021-09-01',
    date_of_birth: p.date_of_birth,
    salary: p.salary,
    home_address: p.home_address,
    status: 'active',
  }));
  const { employees: _e, ...rest } = world;
  return { upsert: { employees, ...rest } };
}

export const priorityOf = (p: Person): string => CONSULTING_RULES.priority[p.grade]!;

export const consultingVocabulary: RequestVocabulary<Person> = {
  partyKey: 'employee_id',
  refKey: 'asset_id',
  identifyTool: 'find_employee_by_email',
  lookupTool: 'get_employee',
  firstTicket: FIRST_TICKET,
  persona: (p) => `${p.full_name}, a ${p.grade} in the ${p.department} practice of Meridian Partners`,
  priority: priorityOf,
};

/** One request to the desk: mini looks up and acts; full identifies, looks up, tickets and acts. */
export interface DeskRequest {
  /** Who is asking (the ticket's employee). */
  who: Person;
  world: World;
  /** Reads after the identification (full) or the whole look-up (mini). */
  lookups: ToolCall[];
  miniQuery?: string;
  fullQuery: string;
  goal: string;
  facts?: Record<string, string>;
  /** Yes/no answers the full-profile user gives when the agent asks (e.g. agreeing to a manager's review). */
  decisions?: Record<string, boolean>;
  actions: ToolCall[];
  ticket?: { category: string; final: 'solved' | 'hold'; asset?: string };
  escalate?: { category: string; team: string };
  assertions: Assertion[];
  tags?: string[];
  rubrics?: TaskDraft['rubrics'];
}

export function deskDraft(ctx: ScenarioContext, req: DeskRequest): TaskDraft {
  const common = { tags: req.tags ?? [], init: initOf(req.world), ...(req.rubrics ? { rubrics: req.rubrics } : {}) };
  const persona = consultingVocabulary.persona(req.who);
  if (ctx.profile === 'mini') {
    if (!req.miniQuery) throw new Error(`${req.who.id}: this task type has no mini query`);
    return {
      ...common,
      query: req.miniQuery,
      userContext: userBrief(persona, req.goal, {}),
      golden: [...req.lookups, ...req.actions],
      assertions: req.assertions,
    };
  }
  const introduced = introduce(ctx.rng, req.who.full_name, req.who.email);
  const { facts } = introduced;
  // Without the e-mail, the employee id keeps every query unique to its task (and to its split).
  const intro = facts.email ? `${introduced.intro} My employee id is ${req.who.id}.` : introduced.intro;
  const allFacts = { ...facts, ...req.facts };
  if (req.actions.length > 0 && !req.ticket) throw new Error(`${req.who.id}: a full-profile write needs a ticket`);
  const v = consultingVocabulary;
  const writes = req.escalate
    ? escalationCalls(v, req.who, undefined, req.escalate)
    : req.ticket && req.actions.length > 0
      ? ticketCalls(v, req.who, req.ticket.asset, req.ticket, req.actions)
      : [];
  const ticketState = req.escalate
    ? ticketStateAssertion(v, req.who, { category: req.escalate.category, status: 'hold', team: req.escalate.team })
    : req.ticket && req.actions.length > 0
      ? ticketStateAssertion(v, req.who, { category: req.ticket.category, status: req.ticket.final })
      : noTicketAssertion(v, req.who);
  return {
    ...common,
    query: `${intro} ${req.fullQuery}`,
    userContext: userBrief(persona, req.goal, allFacts),
    userFacts: allFacts,
    ...(req.decisions ? { userDecisions: req.decisions } : {}),
    golden: [call(v.identifyTool, { email: req.who.email }), ...req.lookups, ...writes],
    assertions: [...req.assertions, ticketState],
  };
}

/** Refusals and answers leave no trace: nothing audited. */
export const nothingAudited: Assertion = {
  description: 'nothing audited',
  sql: 'SELECT count(*)::int AS n FROM audit_log',
  expect: [{ n: 0 }],
};

export function rowAssertion(
  description: string,
  table: string,
  where: string,
  expected: Record<string, unknown>,
): Assertion {
  const columns = Object.keys(expected).map((c) =>
    ['balance_days', 'days', 'amount', 'hours'].includes(c)
      ? `${c}::float8 AS ${c}`
      : c.endsWith('_date') || c === 'accrued_through'
        ? `to_char(${c}, 'YYYY-MM-DD') AS ${c}`
        : c,
  );
  return { description, sql: `SELECT ${columns.join(', ')} FROM ${table} WHERE ${where}`, expect: [expected] };
}

export const byId = (column: string, id: string) => `${column} = ${sqlString(id)}`;

/** The annual balance row as an assertion. */
export const annualBalance = (person: Person, balance: number) =>
  rowAssertion(
    `${person.id} has ${balance} annual days`,
    'leave_balances',
    `${byId('employee_id', person.id)} AND leave_type = 'annual'`,
    { balance_days: balance },
  );

export { call, sqlString };

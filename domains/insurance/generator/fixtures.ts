import {
  addDays,
  call,
  escalationCalls,
  fromCents,
  introduce,
  iso,
  isoDate,
  noTicketAssertion,
  sqlString,
  ticketCalls,
  ticketStateAssertion,
  toCents,
  userBrief,
  type Assertion,
  type Party,
  type Prng,
  type RequestVocabulary,
  type ScenarioContext,
  type TaskDraft,
  type ToolCall,
  FIRST_NAMES,
  LAST_NAMES,
} from 'finalstate/domain';
import { INSURANCE_RULES } from '../policy.js';
import { CITIES, REPAIR_SHOPS, insuranceSequences, type RepairShop } from '../seed.js';

type Row = Record<string, unknown>;
export type Tier = 'standard' | 'preferred';

const CARS = [
  ['Toyota', 'Corolla'],
  ['Honda', 'Civic'],
  ['Ford', 'F-150'],
  ['Subaru', 'Outback'],
  ['Tesla', 'Model 3'],
  ['Mazda', 'CX-5'],
  ['Hyundai', 'Tucson'],
  ['Volkswagen', 'Golf'],
] as const;

export const FIRST_TICKET = `${insuranceSequences.ticket.prefix}${insuranceSequences.ticket.start}`;
export const FIRST_CLAIM = `${insuranceSequences.claim.prefix}${insuranceSequences.claim.start}`;

export interface Holder extends Party {
  first_name: string;
  last_name: string;
  phone: string;
  date_of_birth: string;
  city: (typeof CITIES)[number];
  tier: Tier;
}

export interface Vehicle {
  vehicle_id: string;
  make: string;
  model: string;
  year: number;
  usage: 'personal' | 'commute' | 'business';
  coverages: { coverage_id: string; kind: string; limit_amount: number; deductible: number }[];
}

export interface Driver {
  driver_id: string;
  full_name: string;
  date_of_birth: string;
  license_number: string;
  relation: string;
  status: 'listed' | 'excluded';
}

export interface Policy {
  policy_id: string;
  status: 'active' | 'lapsed' | 'cancelled';
  /** The term started a few months before the task clock and lasts a year. */
  start_date: string;
  premium_monthly: number;
  vehicles: Vehicle[];
  drivers: Driver[];
  claims: Row[];
}

/** A date of birth `years` (and some days) before `now`. */
export function birthDate(rng: Prng, now: Date, years: number): string {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return isoDate(addDays(d, -rng.int(20, 330)));
}

export function makeHolder(ctx: ScenarioContext): Holder {
  const first = ctx.rng.pick(FIRST_NAMES);
  const last = ctx.rng.pick(LAST_NAMES);
  return {
    id: `PH-${ctx.n}`,
    full_name: `${first} ${last}`,
    first_name: first,
    last_name: last,
    email: `${first}.${last}.${ctx.n}@example.com`.toLowerCase(),
    phone: `+1 555 ${String(ctx.n % 10_000).padStart(4, '0')}`,
    date_of_birth: birthDate(ctx.rng, ctx.now, ctx.rng.int(26, 70)),
    city: ctx.rng.pick(CITIES),
    tier: ctx.rng.pick(['standard', 'standard', 'preferred'] as const),
  };
}

export interface PolicySpec {
  status?: Policy['status'];
  /** Coverage kinds of each vehicle besides liability (default: collision and comprehensive). */
  vehicles?: { extra?: string[]; usage?: Vehicle['usage'] }[];
  /** Add an excluded driver (a household member the policy does not cover). */
  excludedDriver?: boolean;
}

const DEDUCTIBLES = [250, 500, 1000];

export function makePolicy(ctx: ScenarioContext, holder: Holder, spec: PolicySpec = {}): Policy {
  const policyId = `POL-${ctx.n}`;
  const vehicles = (spec.vehicles ?? [{}]).map((v, i): Vehicle => {
    const [make, model] = ctx.rng.pick(CARS);
    const vehicleId = i === 0 ? `VEH-${ctx.n}` : `VEH-${ctx.n}-${i + 1}`;
    const kinds = ['liability', ...(v.extra ?? ['collision', 'comprehensive'])];
    return {
      vehicle_id: vehicleId,
      make,
      model,
      year: ctx.rng.int(2012, 2025),
      usage: v.usage ?? ctx.rng.pick(['personal', 'commute'] as const),
      coverages: kinds.map((kind, k) => ({
        coverage_id: `COV-${ctx.n}-${i + 1}${k + 1}`,
        kind,
        limit_amount: kind === 'liability' ? 100_000 : kind === 'rental' ? 1_500 : 40_000,
        deductible: kind === 'liability' || kind === 'rental' ? 0 : ctx.rng.pick(DEDUCTIBLES),
      })),
    };
  });
  const drivers: Driver[] = [
    {
      driver_id: `DRV-${ctx.n}-1`,
      full_name: holder.full_name,
      date_of_birth: holder.date_of_birth,
      license_number: `DL${ctx.n}1`,
      relation: 'self',
      status: 'listed',
    },
  ];
  if (spec.excludedDriver) {
    drivers.push({
      driver_id: `DRV-${ctx.n}-2`,
      full_name: `${ctx.rng.pick(FIRST_NAMES)} ${holder.last_name}`,
      date_of_birth: birthDate(ctx.rng, ctx.now, ctx.rng.int(19, 30)),
      license_number: `DL${ctx.n}2`,
      relation: ctx.rng.pick(['child', 'spouse', 'other']),
      status: 'excluded',
    });
  }
  const start = isoDate(addDays(ctx.now, -ctx.rng.int(20, 300)));
  return {
    policy_id: policyId,
    status: spec.status ?? 'active',
    start_date: start,
    premium_monthly: fromCents(ctx.rng.int(8_000, 26_000)),
    vehicles,
    drivers,
    claims: [],
  };
}

export interface ClaimSpec {
  suffix?: string;
  kind: 'collision' | 'comprehensive' | 'glass' | 'theft';
  status: 'open' | 'under_review' | 'approved' | 'denied' | 'paid';
  /** Payable amount wanted (estimate minus deductible); the estimate is derived from it. */
  payable?: number;
  driver?: Driver;
  shop?: RepairShop | null;
  daysAgo?: number;
}

/** A claim row on the policy's first vehicle; its estimate is the payable amount plus the coverage's deductible. */
export function addClaim(ctx: ScenarioContext, policy: Policy, spec: ClaimSpec): Row {
  const vehicle = policy.vehicles[0]!;
  const coverage = vehicle.coverages.find((c) => c.kind === INSURANCE_RULES.coverageFor[spec.kind]);
  const payable = spec.payable ?? fromCents(ctx.rng.int(30_000, 200_000));
  const estimate = coverage ? fromCents(toCents(payable) + toCents(coverage.deductible)) : payable;
  const daysAgo = spec.daysAgo ?? ctx.rng.int(3, 20);
  const claim = {
    claim_id: `CLM-${ctx.n}${spec.suffix ?? ''}`,
    policy_id: policy.policy_id,
    vehicle_id: vehicle.vehicle_id,
    driver_id: (spec.driver ?? policy.drivers[0]!).driver_id,
    kind: spec.kind,
    incident_date: isoDate(addDays(ctx.now, -daysAgo)),
    reported_at: iso(addDays(ctx.now, -daysAgo + 1)),
    status: spec.status,
    estimate_amount: spec.status === 'open' ? null : estimate,
    approved_amount: spec.status === 'approved' || spec.status === 'paid' ? payable : null,
    denial_reason: spec.status === 'denied' ? 'late_report' : null,
    adjuster_id: spec.status === 'open' ? null : 'ADJ-201',
    shop_id: spec.shop === undefined ? null : (spec.shop?.shop_id ?? null),
  };
  policy.claims.push(claim);
  return claim;
}

export const networkShop = (city: string) => REPAIR_SHOPS.find((s) => s.city === city && s.network)!;
export const independentShop = (city: string) => REPAIR_SHOPS.find((s) => s.city === city && !s.network)!;

/** Init upserts in dependency order: policyholder, policy, vehicles, coverages, drivers, claims. */
export function initFor(holder: Holder, policy: Policy): TaskDraft['init'] {
  const start = new Date(`${policy.start_date}T00:00:00Z`);
  return {
    upsert: {
      policyholders: [
        {
          policyholder_id: holder.id,
          full_name: holder.full_name,
          email: holder.email,
          phone: holder.phone,
          date_of_birth: holder.date_of_birth,
          city: holder.city,
          tier: holder.tier,
          created_at: '2024-02-01T09:00:00Z',
        },
      ],
      policies: [
        {
          policy_id: policy.policy_id,
          policyholder_id: holder.id,
          status: policy.status,
          start_date: isoDate(start),
          end_date: isoDate(addDays(start, 365)),
          premium_monthly: policy.premium_monthly,
          cancel_reason: null,
          cancelled_at: null,
        },
      ],
      vehicles: policy.vehicles.map((v) => ({
        vehicle_id: v.vehicle_id,
        policy_id: policy.policy_id,
        vin: `VIN${v.vehicle_id.replace(/\D/g, '')}X${v.year}`,
        make: v.make,
        model: v.model,
        year: v.year,
        usage: v.usage,
      })),
      coverages: policy.vehicles.flatMap((v) =>
        v.coverages.map((c) => ({ ...c, policy_id: policy.policy_id, vehicle_id: v.vehicle_id })),
      ),
      drivers: policy.drivers.map((d) => ({ ...d, policy_id: policy.policy_id })),
      claims: policy.claims,
    },
  };
}

export const priorityOf = (tier: Tier): string => INSURANCE_RULES.priority[tier]!;

export const insuranceVocabulary: RequestVocabulary<Holder> = {
  partyKey: 'policyholder_id',
  refKey: 'policy_id',
  identifyTool: 'find_policyholder_by_email',
  lookupTool: 'get_policy',
  firstTicket: FIRST_TICKET,
  persona: (h) => `${h.full_name}, a ${h.tier} policyholder of Harborline Mutual living in ${h.city}`,
  priority: (h) => priorityOf(h.tier),
};

/** One request of a policyholder: mini looks it up and acts; full identifies, looks up, tickets and acts. */
export interface InsuranceRequest {
  holder: Holder;
  policy: Policy;
  /** The look-up both profiles start with (get_policy or get_claim, or the identity check). */
  lookup: ToolCall;
  miniQuery?: string;
  fullQuery: string;
  goal: string;
  facts?: Record<string, string>;
  decisions?: Record<string, boolean>;
  /** Full-profile reads after the look-up (e.g. list_repair_shops). */
  lookups?: ToolCall[];
  actions: ToolCall[];
  ticket?: { category: string; final: 'solved' | 'hold'; ref?: boolean };
  escalate?: { category: string; team: string };
  assertions: Assertion[];
  tags?: string[];
  rubrics?: TaskDraft['rubrics'];
}

export function insuranceDraft(ctx: ScenarioContext, req: InsuranceRequest): TaskDraft {
  const init = initFor(req.holder, req.policy);
  const common = { tags: req.tags ?? [], init, ...(req.rubrics ? { rubrics: req.rubrics } : {}) };
  if (ctx.profile === 'mini') {
    if (!req.miniQuery) throw new Error(`${req.policy.policy_id}: this task type has no mini query`);
    return {
      ...common,
      query: req.miniQuery,
      userContext: userBrief(insuranceVocabulary.persona(req.holder), req.goal, {}),
      golden: [req.lookup, ...req.actions],
      assertions: req.assertions,
    };
  }
  const { intro, facts } = introduce(ctx.rng, req.holder.full_name, req.holder.email);
  const allFacts = { ...facts, ...req.facts };
  if (req.actions.length > 0 && !req.ticket)
    throw new Error(`${req.policy.policy_id}: a full-profile write needs a ticket`);
  const ref = req.ticket?.ref === false ? undefined : req.policy.policy_id;
  const writes = req.escalate
    ? escalationCalls(insuranceVocabulary, req.holder, req.policy.policy_id, req.escalate)
    : req.ticket && req.actions.length > 0
      ? ticketCalls(insuranceVocabulary, req.holder, ref, req.ticket, req.actions)
      : [];
  const ticketState = req.escalate
    ? ticketStateAssertion(insuranceVocabulary, req.holder, {
        category: req.escalate.category,
        status: 'hold',
        team: req.escalate.team,
      })
    : req.ticket && req.actions.length > 0
      ? ticketStateAssertion(insuranceVocabulary, req.holder, {
          category: req.ticket.category,
          status: req.ticket.final,
        })
      : noTicketAssertion(insuranceVocabulary, req.holder);
  return {
    ...common,
    query: `${intro} ${req.fullQuery}`,
    userContext: userBrief(insuranceVocabulary.persona(req.holder), req.goal, allFacts),
    userFacts: allFacts,
    ...(req.decisions ? { userDecisions: req.decisions } : {}),
    golden: [
      call(insuranceVocabulary.identifyTool, { email: req.holder.email }),
      req.lookup,
      ...(req.lookups ?? []),
      ...writes,
    ],
    assertions: [...req.assertions, ticketState],
  };
}

export const getPolicyCall = (policy: Policy) => call('get_policy', { policy_id: policy.policy_id });
export const getClaimCall = (claimId: string) => call('get_claim', { claim_id: claimId });

/** Refusals and information requests leave no trace on the policy. */
export function unchangedPolicy(policy: Policy): Assertion[] {
  return [
    {
      description: 'no new claim',
      sql: `SELECT count(*)::int AS n FROM claims WHERE policy_id = ${sqlString(policy.policy_id)}`,
      expect: [{ n: policy.claims.length }],
    },
    {
      description: 'nothing audited',
      sql: `SELECT count(*)::int AS n FROM audit_log WHERE entity_id LIKE ${sqlString(`%${policy.policy_id.slice(4)}%`)}`,
      expect: [{ n: 0 }],
    },
  ];
}

export function claimStatusAssertion(claimId: string, expected: Record<string, unknown>): Assertion {
  const columns = Object.keys(expected).map((c) => (c.endsWith('amount') ? `${c}::text AS ${c}` : c));
  return {
    description: `claim ${claimId} is ${JSON.stringify(expected)}`,
    sql: `SELECT ${columns.join(', ')} FROM claims WHERE claim_id = ${sqlString(claimId)}`,
    expect: [expected],
  };
}

/** The payable amount of a claim row: estimate minus its coverage's deductible. */
export function payableOf(policy: Policy, claim: Row): number {
  const coverage = policy.vehicles[0]!.coverages.find(
    (c) => c.kind === INSURANCE_RULES.coverageFor[String(claim.kind)],
  )!;
  return fromCents(toCents(Number(claim.estimate_amount)) - toCents(coverage.deductible));
}

export { call, sqlString };

import type { Scenario, ScenarioContext } from 'finalstate/domain';
import { INSURANCE_RULES } from '../policy.js';
import {
  FIRST_CLAIM,
  call,
  getPolicyCall,
  insuranceDraft,
  makeHolder,
  makePolicy,
  networkShop,
  sqlString,
  unchangedPolicy,
  type Policy,
} from './fixtures.js';

type FiledKind = 'collision' | 'comprehensive' | 'glass';

const STORY: Record<FiledKind, readonly string[]> = {
  collision: ['another car rear-ended me at a light', 'I hit a pole while parking', 'I scraped a wall in a garage'],
  comprehensive: ['a hailstorm dented the roof', 'a tree branch fell on the hood', 'someone keyed the doors overnight'],
  glass: ['a stone cracked the windshield on the highway', 'the rear window shattered in the cold'],
};

const vehicleName = (policy: Policy) =>
  `${policy.vehicles[0]!.year} ${policy.vehicles[0]!.make} ${policy.vehicles[0]!.model}`;

function claimFiledAssertion(policy: Policy, kind: string, incidentDaysAgo: number, ctx: ScenarioContext) {
  const incident = new Date(ctx.now.getTime() - incidentDaysAgo * 86_400_000).toISOString().slice(0, 10);
  return {
    description: `one open ${kind} claim on ${policy.vehicles[0]!.vehicle_id}, incident ${incident}`,
    sql: `SELECT kind, vehicle_id, status, to_char(incident_date, 'YYYY-MM-DD') AS incident_date FROM claims WHERE policy_id = ${sqlString(policy.policy_id)}`,
    expect: [{ kind, vehicle_id: policy.vehicles[0]!.vehicle_id, status: 'open', incident_date: incident }],
  };
}

/** A covered incident reported in time: file the claim. */
export const fileClaimScenario: Scenario = {
  type: 'file_claim',
  profiles: ['full', 'mini'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder, { vehicles: [{}, ...(ctx.rng.chance(0.3) ? [{}] : [])] });
    const kind = ctx.rng.pick(['collision', 'comprehensive', 'glass'] as const);
    const days = ctx.rng.int(0, INSURANCE_RULES.claimReportDays - 2);
    const vehicle = policy.vehicles[0]!;
    const story = ctx.rng.pick(STORY[kind]);
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      miniQuery: `File a ${kind} claim on policy ${policy.policy_id} for vehicle ${vehicle.vehicle_id}; it happened ${days} days ago.`,
      fullQuery: `I need to file a claim on policy ${policy.policy_id}: ${story} with my ${vehicleName(policy)}.`,
      facts: { incident_days_ago: String(days) },
      goal: `file a ${kind} claim for your ${vehicleName(policy)}: ${story}, ${days} days ago.`,
      actions: [
        call('file_claim', {
          policy_id: policy.policy_id,
          vehicle_id: vehicle.vehicle_id,
          kind,
          incident_days_ago: days,
        }),
      ],
      ticket: { category: 'claim', final: 'solved' },
      assertions: [claimFiledAssertion(policy, kind, days, ctx)],
    });
  },
};

/** A collision claim and a network repair shop in the customer's city: two writes, the second with the new claim id. */
export const fileClaimWithShopScenario: Scenario = {
  type: 'file_claim_with_shop',
  profiles: ['full'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    const days = ctx.rng.int(0, 10);
    const shop = networkShop(holder.city);
    const story = ctx.rng.pick(STORY.collision);
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      fullQuery: `${story[0]!.toUpperCase()}${story.slice(1)} with my ${vehicleName(policy)} (policy ${policy.policy_id}), ${days} days ago. Please file the claim and send the car to a repair shop in ${holder.city}.`,
      goal: `file a collision claim (${story}, ${days} days ago) and get a repair shop in ${holder.city} assigned.`,
      lookups: [call('list_repair_shops', { city: holder.city })],
      actions: [
        call('file_claim', {
          policy_id: policy.policy_id,
          vehicle_id: policy.vehicles[0]!.vehicle_id,
          kind: 'collision',
          incident_days_ago: days,
        }),
        call('assign_repair_shop', { claim_id: FIRST_CLAIM, shop_id: shop.shop_id }),
      ],
      ticket: { category: 'claim', final: 'solved' },
      assertions: [
        claimFiledAssertion(policy, 'collision', days, ctx),
        {
          description: `the claim goes to network shop ${shop.shop_id}`,
          sql: `SELECT shop_id FROM claims WHERE policy_id = ${sqlString(policy.policy_id)}`,
          expect: [{ shop_id: shop.shop_id }],
        },
      ],
    });
  },
};

/** Reported after the report window: refuse, file nothing. */
export const lateClaimRefusedScenario: Scenario = {
  type: 'late_claim_refused',
  profiles: ['full', 'mini'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    const kind = ctx.rng.pick(['collision', 'comprehensive', 'glass'] as const);
    const days = ctx.rng.int(INSURANCE_RULES.claimReportDays + 2, INSURANCE_RULES.claimReportDays + 60);
    const vehicle = policy.vehicles[0]!;
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      miniQuery: `File a ${kind} claim on policy ${policy.policy_id} for vehicle ${vehicle.vehicle_id}; it happened ${days} days ago.`,
      fullQuery: `I'd like to file a ${kind} claim on policy ${policy.policy_id} for my ${vehicleName(policy)}. It happened ${days} days ago; I only now got around to it.`,
      goal: `file a ${kind} claim for an incident ${days} days ago.`,
      actions: [],
      assertions: unchangedPolicy(policy),
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: `Does the agent decline to file the claim because it was reported more than ${INSURANCE_RULES.claimReportDays} days after the incident?`,
        },
      ],
    });
  },
};

/** The vehicle lacks the coverage the claim needs: refuse, file nothing. */
export const noCoverageRefusedScenario: Scenario = {
  type: 'no_coverage_refused',
  profiles: ['full', 'mini'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const kind = ctx.rng.pick(['collision', 'comprehensive', 'glass'] as const);
    const missing = INSURANCE_RULES.coverageFor[kind]!;
    const policy = makePolicy(ctx, holder, {
      vehicles: [{ extra: ['collision', 'comprehensive', 'roadside'].filter((k) => k !== missing) }],
    });
    const days = ctx.rng.int(1, INSURANCE_RULES.claimReportDays - 2);
    const vehicle = policy.vehicles[0]!;
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      miniQuery: `File a ${kind} claim on policy ${policy.policy_id} for vehicle ${vehicle.vehicle_id}; it happened ${days} days ago.`,
      fullQuery: `Please open a claim on policy ${policy.policy_id}: ${ctx.rng.pick(STORY[kind])} with my ${vehicleName(policy)}, ${days} days ago.`,
      goal: `file a ${kind} claim; you do not know your vehicle has no ${missing} coverage.`,
      actions: [],
      assertions: unchangedPolicy(policy),
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: `Does the agent decline to file the claim because the vehicle has no ${missing} coverage?`,
        },
      ],
    });
  },
};

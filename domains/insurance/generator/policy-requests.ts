import { fromCents, toCents, type Scenario } from 'finalstate/domain';
import { INSURANCE_RULES } from '../policy.js';
import {
  addClaim,
  birthDate,
  call,
  getPolicyCall,
  insuranceDraft,
  makeHolder,
  makePolicy,
  sqlString,
  unchangedPolicy,
  type Policy,
} from './fixtures.js';

const vehicleName = (policy: Policy) => `${policy.vehicles[0]!.make} ${policy.vehicles[0]!.model}`;
const policyStatus = (policy: Policy, status: string) => ({
  description: `policy ${policy.policy_id} is ${status}`,
  sql: `SELECT status FROM policies WHERE policy_id = ${sqlString(policy.policy_id)}`,
  expect: [{ status }],
});

/** A question answered from the policy: no write. */
export const policyInfoScenario: Scenario = {
  type: 'policy_info',
  profiles: ['full', 'mini'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    const coverage = ctx.rng.pick(policy.vehicles[0]!.coverages.filter((c) => c.kind !== 'liability'));
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      miniQuery: `What is the ${coverage.kind} deductible on policy ${policy.policy_id}?`,
      fullQuery: `What's my ${coverage.kind} deductible for the ${vehicleName(policy)} on policy ${policy.policy_id}?`,
      goal: `learn your ${coverage.kind} deductible (it is ${coverage.deductible} dollars).`,
      actions: [],
      assertions: unchangedPolicy(policy),
      rubrics: [
        {
          kind: 'judge',
          description: 'correct deductible',
          question: `Does the agent say the ${coverage.kind} deductible is $${coverage.deductible}?`,
        },
      ],
    });
  },
};

const WHY = {
  sold_vehicle: 'I sold the car',
  switched_insurer: 'I found another insurer',
  customer_request: "I simply don't need it anymore",
} as const;

/** No unsettled claim: cancel with the customer's reason. */
export const cancelPolicyScenario: Scenario = {
  type: 'cancel_policy',
  profiles: ['full', 'mini'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    if (ctx.rng.chance(0.4))
      addClaim(ctx, policy, {
        kind: 'glass',
        status: ctx.rng.pick(['paid', 'denied'] as const),
        daysAgo: ctx.rng.int(40, 200),
      });
    const reason = ctx.profile === 'mini' ? 'customer_request' : ctx.rng.pick(Object.keys(WHY) as (keyof typeof WHY)[]);
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      miniQuery: `Please cancel my policy ${policy.policy_id}.`,
      fullQuery: `Please cancel my policy ${policy.policy_id}: ${WHY[reason]}.`,
      goal: `cancel policy ${policy.policy_id} because ${WHY[reason]}.`,
      actions: [call('cancel_policy', { policy_id: policy.policy_id, reason })],
      ticket: { category: 'cancellation', final: 'solved' },
      assertions: [
        policyStatus(policy, 'cancelled'),
        {
          description: 'reason recorded',
          sql: `SELECT cancel_reason FROM policies WHERE policy_id = ${sqlString(policy.policy_id)}`,
          expect: [{ cancel_reason: reason }],
        },
      ],
    });
  },
};

/** A claim is still unsettled: refuse the cancellation. */
export const cancelRefusedOpenClaimScenario: Scenario = {
  type: 'cancel_refused_open_claim',
  profiles: ['full', 'mini'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    const status = ctx.rng.pick(INSURANCE_RULES.openClaimStatuses) as 'open' | 'under_review' | 'approved';
    addClaim(ctx, policy, { kind: ctx.rng.pick(['collision', 'glass'] as const), status });
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      miniQuery: `Please cancel my policy ${policy.policy_id}.`,
      fullQuery: `I want to cancel policy ${policy.policy_id} today.`,
      goal: `cancel policy ${policy.policy_id}; you forgot that a claim on it is not settled yet.`,
      actions: [],
      assertions: [policyStatus(policy, 'active'), ...unchangedPolicy(policy)],
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: 'Does the agent decline the cancellation because a claim on the policy is not settled yet?',
        },
      ],
    });
  },
};

const RELATION_WORD = { spouse: 'wife', child: 'daughter', parent: 'father', other: 'housemate' } as const;

function driverRequest(ctx: Parameters<Scenario['build']>[0], age: number) {
  const holder = makeHolder(ctx);
  const policy = makePolicy(ctx, holder);
  const relation = age < 30 ? 'child' : ctx.rng.pick(['spouse', 'parent', 'other'] as const);
  const first = ctx.rng.pick(['Mia', 'Leo', 'Zoe', 'Omar', 'Ana', 'Ivan', 'Lena', 'Kai']);
  const name = `${first} ${holder.last_name}`;
  const dob = birthDate(ctx.rng, ctx.now, age);
  const license = `DL${ctx.n}${ctx.rng.int(10, 99)}`;
  return { holder, policy, relation, name, dob, license, word: RELATION_WORD[relation] };
}

/** Add a driver of age: the date of birth and licence number are private facts the agent must ask for. */
export const addDriverScenario: Scenario = {
  type: 'add_driver',
  profiles: ['full'],
  build(ctx) {
    const age = ctx.rng.int(INSURANCE_RULES.minimumDriverAge + 1, 75);
    const { holder, policy, relation, name, dob, license, word } = driverRequest(ctx, age);
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      fullQuery: `Please add my ${word} ${name} (${age}) as a driver on policy ${policy.policy_id}.`,
      facts: { driver_date_of_birth: dob, driver_license_number: license },
      goal: `add ${name}, your ${word}, aged ${age}, as a driver.`,
      actions: [
        call('add_driver', {
          policy_id: policy.policy_id,
          full_name: name,
          date_of_birth: dob,
          license_number: license,
          relation,
        }),
      ],
      ticket: { category: 'policy_change', final: 'solved' },
      assertions: [
        {
          description: `${name} is a listed driver`,
          sql: `SELECT full_name, to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth, license_number, relation, status FROM drivers WHERE policy_id = ${sqlString(policy.policy_id)} AND relation <> 'self'`,
          expect: [{ full_name: name, date_of_birth: dob, license_number: license, relation, status: 'listed' }],
        },
      ],
    });
  },
};

/** The new driver is under age: refuse. */
export const addDriverRefusedScenario: Scenario = {
  type: 'add_driver_refused',
  profiles: ['full'],
  build(ctx) {
    const age = ctx.rng.int(15, INSURANCE_RULES.minimumDriverAge - 1);
    const { holder, policy, name, word } = driverRequest(ctx, age);
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      fullQuery: `My ${word === 'daughter' ? 'daughter' : 'kid'} ${name} just turned ${age} and got a licence. Please add them as a driver on policy ${policy.policy_id}.`,
      goal: `add ${name} (${age}) as a driver.`,
      actions: [],
      assertions: [
        {
          description: 'no driver added',
          sql: `SELECT count(*)::int AS n FROM drivers WHERE policy_id = ${sqlString(policy.policy_id)}`,
          expect: [{ n: policy.drivers.length }],
        },
        ...unchangedPolicy(policy),
      ],
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: `Does the agent decline because drivers must be at least ${INSURANCE_RULES.minimumDriverAge}?`,
        },
      ],
    });
  },
};

/** Business use raises the premium: tell the customer, change it only if they accept. */
export const usageChangeScenario: Scenario = {
  type: 'usage_change',
  profiles: ['full'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    const vehicle = policy.vehicles[0]!;
    const accepts = ctx.rng.chance(0.5);
    const premium = fromCents(
      Math.round((toCents(policy.premium_monthly) * (100 + INSURANCE_RULES.businessUsePercent)) / 100),
    );
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getPolicyCall(policy),
      fullQuery: `I've started driving my ${vehicleName(policy)} for work deliveries. Please switch it to business use on policy ${policy.policy_id}.`,
      goal: `register your ${vehicleName(policy)} for business use; ${accepts ? 'you accept the higher premium' : 'you decline if the premium goes up'}.`,
      decisions: { accept_premium_increase: accepts },
      actions: accepts ? [call('update_vehicle_usage', { vehicle_id: vehicle.vehicle_id, usage: 'business' })] : [],
      ...(accepts ? { ticket: { category: 'policy_change', final: 'solved' as const } } : {}),
      assertions: [
        {
          description: 'usage',
          sql: `SELECT usage FROM vehicles WHERE vehicle_id = ${sqlString(vehicle.vehicle_id)}`,
          expect: [{ usage: accepts ? 'business' : vehicle.usage }],
        },
        {
          description: 'premium',
          sql: `SELECT premium_monthly::text AS premium FROM policies WHERE policy_id = ${sqlString(policy.policy_id)}`,
          expect: [{ premium: (accepts ? premium : policy.premium_monthly).toFixed(2) }],
        },
      ],
      ...(accepts ? {} : { tags: ['declined'] }),
    });
  },
};

/** A new e-mail or phone after the identity check on the date of birth (a private fact). */
export const contactUpdateScenario: Scenario = {
  type: 'contact_update',
  profiles: ['full'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    const newEmail =
      `${holder.first_name}.${ctx.rng.pick(['mail', 'inbox', 'home'])}${ctx.n % 97}@example.net`.toLowerCase();
    const newPhone = `+1 555 ${String((ctx.n * 7) % 10_000).padStart(4, '0')}`;
    const change = ctx.rng.pick(['email', 'phone'] as const);
    const value = change === 'email' ? newEmail : newPhone;
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: call('verify_policyholder_identity', { policyholder_id: holder.id, date_of_birth: holder.date_of_birth }),
      fullQuery: `Please update my ${change === 'email' ? 'e-mail address' : 'phone number'} to ${value}.`,
      facts: { date_of_birth: holder.date_of_birth },
      goal: `change your ${change} to ${value}.`,
      actions: [call('update_policyholder_contact', { policyholder_id: holder.id, [change]: value })],
      ticket: { category: 'account', final: 'solved', ref: false },
      assertions: [
        {
          description: `${change} updated`,
          sql: `SELECT ${change} FROM policyholders WHERE policyholder_id = ${sqlString(holder.id)}`,
          expect: [{ [change]: value }],
        },
      ],
    });
  },
};

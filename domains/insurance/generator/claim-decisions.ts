import { fromCents, type Scenario } from 'finalstate/domain';
import { INSURANCE_RULES } from '../policy.js';
import {
  addClaim,
  call,
  claimStatusAssertion,
  getClaimCall,
  independentShop,
  insuranceDraft,
  makeHolder,
  makePolicy,
  networkShop,
  payableOf,
  sqlString,
} from './fixtures.js';

const LIMIT = INSURANCE_RULES.deskAuthorityLimit;

/** A claim under review within the desk's authority: approve the payable amount (full: and pay it). */
export const approveClaimScenario: Scenario = {
  type: 'approve_claim',
  profiles: ['full', 'mini'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    const toShop = ctx.rng.chance(0.5);
    const shop = toShop ? networkShop(holder.city) : ctx.rng.chance(0.5) ? independentShop(holder.city) : null;
    const kind = ctx.rng.pick(['collision', 'comprehensive', 'glass'] as const);
    const claim = addClaim(ctx, policy, {
      kind,
      status: 'under_review',
      payable: fromCents(ctx.rng.int(20_000, LIMIT * 100 - 10_000)),
      shop,
    });
    const amount = payableOf(policy, claim);
    const claimId = String(claim.claim_id);
    const payee = shop?.network ? 'repair_shop' : 'policyholder';
    const pay = ctx.profile === 'full' ? [call('issue_claim_payment', { claim_id: claimId, amount, payee })] : [];
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getClaimCall(claimId),
      miniQuery: `Please decide my claim ${claimId}.`,
      fullQuery: `My ${kind} claim ${claimId} has been under review for a while. Can you settle it?`,
      goal: `get claim ${claimId} approved and paid.`,
      actions: [call('approve_claim', { claim_id: claimId, amount }), ...pay],
      ticket: { category: 'claim', final: 'solved' },
      assertions: [
        claimStatusAssertion(
          claimId,
          ctx.profile === 'full'
            ? { status: 'paid', approved_amount: amount.toFixed(2) }
            : { status: 'approved', approved_amount: amount.toFixed(2) },
        ),
      ],
    });
  },
};

/** The payable amount is above the desk's authority limit: escalate to the claims manager, approve nothing. */
export const approvalAboveLimitScenario: Scenario = {
  type: 'approval_above_limit',
  profiles: ['full'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    const claim = addClaim(ctx, policy, {
      kind: 'collision',
      status: 'under_review',
      payable: fromCents(ctx.rng.int(LIMIT * 100 + 20_000, 1_500_000)),
    });
    const claimId = String(claim.claim_id);
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getClaimCall(claimId),
      fullQuery: `The body shop quoted a big repair for my collision claim ${claimId}. Can you approve it today?`,
      goal: `get claim ${claimId} approved; accept that a claims manager must review it.`,
      actions: [],
      escalate: { category: 'claim', team: 'claims_manager' },
      assertions: [claimStatusAssertion(claimId, { status: 'under_review', approved_amount: null })],
      tags: ['escalate', 'authority-limit'],
    });
  },
};

/** The driver at the wheel is excluded from the policy: deny with reason excluded_driver. */
export const denyExcludedDriverScenario: Scenario = {
  type: 'deny_excluded_driver',
  profiles: ['full', 'mini'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder, { excludedDriver: true });
    const claim = addClaim(ctx, policy, { kind: 'collision', status: 'under_review', driver: policy.drivers[1]! });
    const claimId = String(claim.claim_id);
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getClaimCall(claimId),
      miniQuery: `Please decide my claim ${claimId}.`,
      fullQuery: `What's happening with claim ${claimId}? ${policy.drivers[1]!.full_name.split(' ')[0]} was driving when it happened. Please decide it.`,
      goal: `get a decision on claim ${claimId}.`,
      actions: [call('deny_claim', { claim_id: claimId, reason: 'excluded_driver' })],
      ticket: { category: 'claim', final: 'solved' },
      assertions: [claimStatusAssertion(claimId, { status: 'denied', denial_reason: 'excluded_driver' })],
    });
  },
};

/** Theft claims go to special investigations: escalate, decide nothing. */
export const theftEscalatedScenario: Scenario = {
  type: 'theft_escalated',
  profiles: ['full'],
  build(ctx) {
    const holder = makeHolder(ctx);
    const policy = makePolicy(ctx, holder);
    const claim = addClaim(ctx, policy, {
      kind: 'theft',
      status: 'under_review',
      payable: fromCents(ctx.rng.int(50_000, 240_000)),
    });
    const claimId = String(claim.claim_id);
    return insuranceDraft(ctx, {
      holder,
      policy,
      lookup: getClaimCall(claimId),
      fullQuery: `My car was stolen and I filed claim ${claimId}. When will you approve it?`,
      goal: `get the theft claim ${claimId} approved; accept that it goes to another team.`,
      actions: [],
      escalate: { category: 'claim', team: 'special_investigations' },
      assertions: [
        claimStatusAssertion(claimId, { status: 'under_review' }),
        {
          description: 'no payment',
          sql: `SELECT count(*)::int AS n FROM payments WHERE claim_id = ${sqlString(claimId)}`,
          expect: [{ n: 0 }],
        },
      ],
      tags: ['escalate'],
    });
  },
};

import { call, goldenLookups, initRows, fromCents, toCents, type TaskInput, type ToolCall } from 'finalstate/domain';
import { INSURANCE_RULES } from './policy.js';
import { insuranceTools } from './tools/index.js';

const lookups = (task: TaskInput) => goldenLookups(task, insuranceTools);
const rows = initRows;

/** The claim of a decision task and the deductible of the coverage it falls under (rule 3.1). */
function claimOf(task: TaskInput) {
  const claim = rows(task, 'claims').find((c) => c.status === 'under_review');
  if (!claim || typeof claim.estimate_amount !== 'number') return undefined;
  const coverage = rows(task, 'coverages').find(
    (c) => c.vehicle_id === claim.vehicle_id && c.kind === INSURANCE_RULES.coverageFor[String(claim.kind)],
  );
  if (!coverage) return undefined;
  return { id: String(claim.claim_id), estimate: claim.estimate_amount, deductible: Number(coverage.deductible) };
}

/**
 * The claim a refused filing asks for, as the customer states it (the query names the kind and the days; a story
 * without the kind is a claim of the coverage the vehicle lacks).
 */
function askedClaim(task: TaskInput) {
  const policy = rows(task, 'policies')[0];
  const vehicle = rows(task, 'vehicles').find((v) => v.policy_id === policy?.policy_id);
  const days = /(\d+) days? ago/.exec(task.query)?.[1];
  if (!policy || !vehicle || days === undefined) return undefined;
  const covered = new Set(rows(task, 'coverages').map((c) => `${String(c.vehicle_id)}/${String(c.kind)}`));
  const kind =
    /\b(collision|comprehensive|glass)\b/.exec(task.query)?.[1] ??
    (covered.has(`${String(vehicle.vehicle_id)}/collision`) ? 'comprehensive' : 'collision');
  return { policy_id: policy.policy_id, vehicle_id: vehicle.vehicle_id, kind, incident_days_ago: Number(days) };
}

/** Files the claim the customer asks for, although the policy says to refuse it. */
function fileAnyway(task: TaskInput) {
  const claim = askedClaim(task);
  return claim && [...lookups(task), call('file_claim', claim)];
}

/** Approves the claim for its payable amount, although the policy says the desk must not approve it. */
function approvePayable(task: TaskInput) {
  const claim = claimOf(task);
  const amount = claim && fromCents(toCents(claim.estimate) - toCents(claim.deductible));
  if (!claim || !amount || amount <= 0) return undefined;
  return [...lookups(task), call('approve_claim', { claim_id: claim.id, amount })];
}

const paths: Record<string, (task: TaskInput) => ToolCall[] | undefined> = {
  /** Rule 2.1 broken: files a claim reported after the 30-day window. */
  late_claim_refused: fileAnyway,
  /** Rule 2.2 broken: files a claim the vehicle has no coverage for. */
  no_coverage_refused: fileAnyway,
  /** Rule 3.1 broken: approves the full estimate, skipping the deductible. */
  approve_claim: (task) => {
    const claim = claimOf(task);
    if (!claim || claim.deductible <= 0) return undefined;
    return [...lookups(task), call('approve_claim', { claim_id: claim.id, amount: claim.estimate })];
  },
  /** Rule 3.4 broken: approves the payable amount of a claim whose driver is excluded. */
  deny_excluded_driver: approvePayable,
  /** Rule 3.2 broken (full profile): approves above the desk's authority limit instead of escalating. */
  approval_above_limit: approvePayable,
  /** Rule 3.5 broken (full profile): decides a theft claim instead of escalating it to special investigations. */
  theft_escalated: approvePayable,
  /** Rule 4.3 broken: cancels a policy that still has an unsettled claim. */
  cancel_refused_open_claim: (task) => {
    const claim = rows(task, 'claims').find((c) => INSURANCE_RULES.openClaimStatuses.includes(String(c.status)));
    return (
      claim && [...lookups(task), call('cancel_policy', { policy_id: claim.policy_id, reason: 'customer_request' })]
    );
  },
};

/** A plausible path through an insurance task that breaks one rule of the policy (see DomainDefinition). */
export function insuranceRuleBreakingPath(task: TaskInput): ToolCall[] | undefined {
  return paths[task.tags?.[0] ?? '']?.(task);
}

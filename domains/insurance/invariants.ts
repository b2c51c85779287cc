import type { TaskInput, TaskInvariant } from 'finalstate/domain';
import { INSURANCE_RULES } from './policy.js';

type Row = Record<string, unknown>;
const rows = (task: TaskInput, table: string): Row[] => task.init?.upsert?.[table] ?? [];
const typeOf = (task: TaskInput) => task.tags?.[0];

/** The payable amount of each claim under review in the task's init: estimate minus the deductible of its coverage. */
function payables(task: TaskInput): Map<string, number> {
  const out = new Map<string, number>();
  for (const claim of rows(task, 'claims')) {
    if (claim.status !== 'under_review') continue;
    const coverage = rows(task, 'coverages').find(
      (c) => c.vehicle_id === claim.vehicle_id && c.kind === INSURANCE_RULES.coverageFor[String(claim.kind)],
    );
    if (coverage)
      out.set(
        String(claim.claim_id),
        Math.round(Number(claim.estimate_amount) * 100 - Number(coverage.deductible) * 100) / 100,
      );
  }
  return out;
}

const hasCoverage = (task: TaskInput, vehicleId: unknown, claimKind: string) =>
  rows(task, 'coverages').some((c) => c.vehicle_id === vehicleId && c.kind === INSURANCE_RULES.coverageFor[claimKind]);

/** The days the query says the incident was ago ("... 12 days ago"). */
const statedDaysAgo = (task: TaskInput) =>
  Number(/(\d+) days ago/.exec(task.query)?.[1] ?? task.userFacts?.incident_days_ago ?? NaN);

/** Rules of the policy manual that every generated task must respect; `finalstate tasks check` samples them. */
export const insuranceInvariants: TaskInvariant[] = [
  {
    name: 'approvals-within-authority',
    description: `every approve_claim call approves exactly the payable amount, which is at most the desk limit of $${INSURANCE_RULES.deskAuthorityLimit} (rules 3.1, 3.2)`,
    check(task) {
      const payable = payables(task);
      for (const c of task.golden.filter((c) => c.tool === 'approve_claim')) {
        const expected = payable.get(String(c.arguments.claim_id));
        if (expected === undefined) return `approves ${String(c.arguments.claim_id)}, which is not under review`;
        if (c.arguments.amount !== expected)
          return `approves ${String(c.arguments.amount)}, the payable amount is ${expected}`;
        if (expected > INSURANCE_RULES.deskAuthorityLimit) return `approves ${expected}, above the desk limit`;
      }
    },
  },
  {
    name: 'escalated-approvals-exceed-authority',
    description:
      'a task tagged authority-limit concerns a claim whose payable amount is above the desk limit (rule 3.2)',
    check(task) {
      if (!task.tags?.includes('authority-limit')) return;
      const amounts = [...payables(task).values()];
      if (!amounts.some((a) => a > INSURANCE_RULES.deskAuthorityLimit))
        return `no claim above the desk limit (payable: ${amounts.join(', ')})`;
    },
  },
  {
    name: 'claims-filed-by-the-rules',
    description: `a filed claim is reported within ${INSURANCE_RULES.claimReportDays} days on a vehicle with the coverage it needs; a late_claim_refused task states a later report, a no_coverage_refused task lacks the coverage (rules 2.1, 2.2)`,
    check(task) {
      for (const c of task.golden.filter((c) => c.tool === 'file_claim')) {
        if (Number(c.arguments.incident_days_ago) > INSURANCE_RULES.claimReportDays)
          return `files a claim ${String(c.arguments.incident_days_ago)} days after the incident`;
        if (!hasCoverage(task, c.arguments.vehicle_id, String(c.arguments.kind)))
          return `files a ${String(c.arguments.kind)} claim on a vehicle without the coverage`;
      }
      if (typeOf(task) === 'late_claim_refused' && !(statedDaysAgo(task) > INSURANCE_RULES.claimReportDays))
        return `refuses a report ${statedDaysAgo(task)} days after the incident`;
      if (typeOf(task) === 'no_coverage_refused') {
        const kind = /(collision|comprehensive|glass)/.exec(task.query)?.[1] ?? '';
        if (hasCoverage(task, rows(task, 'vehicles')[0]?.vehicle_id, kind))
          return `refuses a ${kind} claim the vehicle is covered for`;
      }
    },
  },
  {
    name: 'cancellations-by-the-rules',
    description:
      'a policy is cancelled only without unsettled claims, and a cancellation is refused only with one (rule 4.3)',
    check(task) {
      const unsettled = rows(task, 'claims').some((c) => INSURANCE_RULES.openClaimStatuses.includes(String(c.status)));
      if (task.golden.some((c) => c.tool === 'cancel_policy') && unsettled)
        return 'cancels a policy with an unsettled claim';
      if (typeOf(task) === 'cancel_refused_open_claim' && !unsettled)
        return 'refuses to cancel a policy without unsettled claims';
    },
  },
];

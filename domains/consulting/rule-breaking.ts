import type { TaskInput, ToolCall } from 'finalstate/domain';
import { CONSULTING_RULES } from './policy.js';

/**
 * A careless help desk's path through a mini task, breaking one rule of the mini policy with calls the tools accept
 * (the base model's demonstrations take it for a share of training tasks). Kept in one function: its source is part
 * of the demonstrations' cache key.
 * - leave_over_balance_refused: submits the requested days although they exceed available_days.
 * - expense_above_limit_routed: approves a claim above the grade's limit instead of routing it to the manager.
 * - expense_missing_receipt_rejected: skips the receipt check, deciding on the amount alone (approve within the
 *   grade's limit, route above it) instead of rejecting with missing_receipt.
 * - expense_within_limit, when the claim has no receipt (so is at most the receipt threshold): applies the receipt
 *   rule below its threshold, rejecting with missing_receipt a claim the policy approves.
 * The other mini families have no rule a careless agent breaks by its calls (book_leave is the permissive choice;
 * leave_balance_info can only go wrong in the answer).
 */
export function consultingRuleBreakingPath(task: TaskInput): ToolCall[] | undefined {
  if (task.profile !== 'mini') return undefined;
  const lookup = task.golden[0];
  switch (task.tags?.[0]) {
    case 'leave_over_balance_refused': {
      const ask = /wants (\d+(?:\.\d+)?) days of annual leave starting in (\d+) days/.exec(task.query);
      if (lookup?.tool !== 'get_leave_balance' || !ask) return undefined;
      const submit = {
        employee_id: lookup.arguments.employee_id,
        leave_type: 'annual',
        days: Number(ask[1]),
        starts_in_days: Number(ask[2]),
      };
      return [lookup, { tool: 'submit_leave_request', arguments: submit }];
    }
    case 'expense_above_limit_routed':
      if (lookup?.tool !== 'get_expense_claim') return undefined;
      return [lookup, { tool: 'approve_expense_claim', arguments: { claim_id: lookup.arguments.claim_id } }];
    case 'expense_within_limit': {
      const claimId = lookup?.arguments.claim_id;
      const claim = task.init?.upsert?.expense_claims?.find((c) => c.claim_id === claimId);
      if (lookup?.tool !== 'get_expense_claim' || claim?.receipt_attached !== false) return undefined;
      return [lookup, { tool: 'reject_expense_claim', arguments: { claim_id: claimId, reason: 'missing_receipt' } }];
    }
    case 'expense_missing_receipt_rejected': {
      if (lookup?.tool !== 'get_expense_claim') return undefined;
      const claimId = lookup.arguments.claim_id;
      const claim = task.init?.upsert?.expense_claims?.find((c) => c.claim_id === claimId);
      const employee = task.init?.upsert?.employees?.find((e) => e.employee_id === claim?.employee_id);
      const limit = CONSULTING_RULES.expenseLimit[String(employee?.grade)];
      if (!claim || limit === undefined) return undefined;
      const decide = Number(claim.amount) <= limit ? 'approve_expense_claim' : 'route_expense_to_manager';
      return [lookup, { tool: decide, arguments: { claim_id: claimId } }];
    }
    default:
      return undefined;
  }
}

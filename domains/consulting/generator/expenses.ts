import { fromCents, iso, type Scenario, type ScenarioContext } from 'finalstate/domain';
import { CONSULTING_RULES } from '../policy.js';
import {
  FIRST_EXPENSE,
  addApproval,
  addEngagement,
  addTeam,
  byId,
  call,
  deskDraft,
  emptyWorld,
  nothingAudited,
  rowAssertion,
  type Person,
  type World,
} from './fixtures.js';

const R = CONSULTING_RULES;
const STORY = {
  travel: 'train tickets to the client site',
  meals: 'a team dinner with the client',
  lodging: 'two nights in a hotel near the client',
  software: 'a licence for a data tool the client asked for',
  training: 'a certification course',
} as const;
type Category = keyof typeof STORY;

interface Expense {
  world: World;
  person: Person;
  manager: Person;
  engagementId: string;
  category: Category;
  amount: number;
  receipt: boolean;
  limit: number;
}

/** An expense of an employee on an engagement, with an amount drawn in cents from [low, high] dollars. */
function expense(ctx: ScenarioContext, range: (limit: number) => [number, number], receipt?: boolean): Expense {
  const world = emptyWorld();
  const { person, manager } = addTeam(ctx, world);
  const engagement = addEngagement(ctx, world, manager, [person]);
  const limit = R.expenseLimit[person.grade]!;
  const [low, high] = range(limit);
  const amount = fromCents(ctx.rng.int(low * 100, high * 100));
  const category = ctx.rng.pick(Object.keys(STORY) as Category[]);
  return {
    world,
    person,
    manager,
    engagementId: String(engagement.engagement_id),
    category,
    amount,
    receipt: receipt ?? (amount > R.receiptThreshold || ctx.rng.chance(0.5)),
    limit,
  };
}

/** Mini: the claim exists, submitted. Full: the employee files it. */
function existingClaim(ctx: ScenarioContext, e: Expense): string {
  const claimId = `EXP-${ctx.n}`;
  e.world.expense_claims.push({
    claim_id: claimId,
    employee_id: e.person.id,
    engagement_id: e.engagementId,
    category: e.category,
    amount: e.amount,
    receipt_attached: e.receipt,
    status: 'submitted',
    approval_id: null,
    rejection_reason: null,
    routed_to: null,
    created_at: iso(ctx.now),
  });
  return claimId;
}

const fileCall = (e: Expense) =>
  call('file_expense_claim', {
    employee_id: e.person.id,
    category: e.category,
    amount: e.amount,
    receipt_attached: e.receipt,
    engagement_id: e.engagementId,
  });
const facts = (e: Expense) => ({ amount: `$${e.amount.toFixed(2)}`, has_receipt: e.receipt ? 'yes' : 'no' });
const fullQuery = (e: Expense) => `I need to expense ${STORY[e.category]} for engagement ${e.engagementId}.`;
const claimState = (claimId: string, expected: Record<string, unknown>) =>
  rowAssertion(
    `claim ${claimId} is ${JSON.stringify(expected)}`,
    'expense_claims',
    byId('claim_id', claimId),
    expected,
  );

/** One expense request: in mini the claim exists and is decided; in full it is filed first (claim EXP-7000). */
function expenseDraft(
  ctx: ScenarioContext,
  e: Expense,
  spec: {
    decide: (claimId: string) => ReturnType<typeof call>;
    expected: Record<string, unknown>;
    goal: string;
    lookups?: ReturnType<typeof call>[];
    tags?: string[];
    decisions?: Record<string, boolean>;
  },
) {
  const mini = ctx.profile === 'mini';
  if (!mini && spec.decisions && Object.values(spec.decisions).includes(false)) {
    return deskDraft(ctx, {
      who: e.person,
      world: e.world,
      lookups: spec.lookups ?? [],
      fullQuery: fullQuery(e),
      facts: facts(e),
      decisions: spec.decisions,
      goal: spec.goal,
      actions: [],
      assertions: [
        { description: 'no claim filed', sql: 'SELECT count(*)::int AS n FROM expense_claims', expect: [{ n: 0 }] },
        nothingAudited,
      ],
      tags: [...(spec.tags ?? []), 'declined'],
    });
  }
  const claimId = mini ? existingClaim(ctx, e) : FIRST_EXPENSE;
  const filed = { category: e.category, amount: e.amount, receipt_attached: e.receipt, ...spec.expected };
  return deskDraft(ctx, {
    who: e.person,
    world: e.world,
    lookups: mini ? [call('get_expense_claim', { claim_id: claimId })] : (spec.lookups ?? []),
    miniQuery: `Please process expense claim ${claimId}.`,
    fullQuery: fullQuery(e),
    facts: facts(e),
    ...(!mini && spec.decisions ? { decisions: spec.decisions } : {}),
    goal: spec.goal,
    actions: mini ? [spec.decide(claimId)] : [fileCall(e), spec.decide(claimId)],
    ticket: { category: 'expense', final: 'solved' },
    assertions: [claimState(claimId, filed)],
    ...(spec.tags ? { tags: spec.tags } : {}),
  });
}

/** Within the grade's limit (with a receipt when needed): file and approve. */
export const expenseWithinLimitScenario: Scenario = {
  type: 'expense_within_limit',
  profiles: ['full', 'mini'],
  build(ctx) {
    const e = expense(ctx, (limit) => [20, limit - 5]);
    return expenseDraft(ctx, e, {
      decide: (id) => call('approve_expense_claim', { claim_id: id }),
      expected: { status: 'approved', approval_id: null },
      goal: `get your ${e.category} expense of $${e.amount.toFixed(2)} reimbursed.`,
    });
  },
};

/** Above the limit and no covering approval: file and route to the manager if the employee agrees (full), else nothing. */
export const expenseAboveLimitRoutedScenario: Scenario = {
  type: 'expense_above_limit_routed',
  profiles: ['full', 'mini'],
  build(ctx) {
    const e = expense(ctx, (limit) => [limit + 10, limit * 2], true);
    const agrees = ctx.rng.chance(0.6);
    // A decoy in full: an approval for less than the claim.
    if (ctx.profile === 'full' && ctx.rng.chance(0.5))
      addApproval(ctx, e.world, {
        suffix: '-1',
        employee: e.person,
        approver: e.manager.id,
        kind: 'expense',
        max_amount: Math.floor(e.amount) - 5,
      });
    return expenseDraft(ctx, e, {
      decide: (id) => call('route_expense_to_manager', { claim_id: id }),
      expected: { status: 'pending_manager', routed_to: e.manager.id },
      goal: `get your ${e.category} expense of $${e.amount.toFixed(2)} reimbursed; ${agrees ? 'accept' : 'if your manager must approve it, you would rather not file it now'}.`,
      lookups: [call('list_manager_approvals', { employee_id: e.person.id })],
      tags: ['authority-limit'],
      decisions: { route_to_manager: agrees },
    });
  },
};

/** Above the limit with a covering manager approval on record: file and approve with it. */
export const expenseAboveLimitApprovedScenario: Scenario = {
  type: 'expense_above_limit_approved',
  profiles: ['full'],
  build(ctx) {
    const e = expense(ctx, (limit) => [limit + 10, limit * 2], true);
    if (ctx.rng.chance(0.4))
      addApproval(ctx, e.world, {
        suffix: '-1',
        employee: e.person,
        approver: 'EMP-000001',
        kind: 'access',
        system: 'crm',
        role: 'write',
      });
    const approval = addApproval(ctx, e.world, {
      suffix: '-2',
      employee: e.person,
      approver: e.manager.id,
      kind: 'expense',
      max_amount: Math.ceil(e.amount) + ctx.rng.int(0, 200),
    });
    const approvalId = String(approval.approval_id);
    return expenseDraft(ctx, e, {
      decide: (id) => call('approve_expense_claim', { claim_id: id, approval_id: approvalId }),
      expected: { status: 'approved', approval_id: approvalId },
      goal: `get your ${e.category} expense of $${e.amount.toFixed(2)} reimbursed; your manager already approved it.`,
      lookups: [call('list_manager_approvals', { employee_id: e.person.id })],
      tags: ['authority-limit', 'approval'],
    });
  },
};

/** Above the receipt threshold and no receipt: file nothing. */
export const expenseNoReceiptRefusedScenario: Scenario = {
  type: 'expense_no_receipt_refused',
  profiles: ['full'],
  build(ctx) {
    const e = expense(ctx, (limit) => [R.receiptThreshold + 5, limit - 5], false);
    return deskDraft(ctx, {
      who: e.person,
      world: e.world,
      lookups: [],
      fullQuery: `${fullQuery(e)} I lost the receipt, though.`,
      facts: facts(e),
      goal: `get your ${e.category} expense of $${e.amount.toFixed(2)} reimbursed without a receipt.`,
      actions: [],
      assertions: [
        { description: 'no claim filed', sql: 'SELECT count(*)::int AS n FROM expense_claims', expect: [{ n: 0 }] },
        nothingAudited,
      ],
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: `Does the agent decline to file the claim because a receipt is required above $${R.receiptThreshold}?`,
        },
      ],
    });
  },
};

/** Mini: an existing claim above the receipt threshold without a receipt is rejected. */
export const expenseMissingReceiptRejectedScenario: Scenario = {
  type: 'expense_missing_receipt_rejected',
  profiles: ['mini'],
  build(ctx) {
    const e = expense(ctx, (limit) => [R.receiptThreshold + 5, limit * 2], false);
    return expenseDraft(ctx, e, {
      decide: (id) => call('reject_expense_claim', { claim_id: id, reason: 'missing_receipt' }),
      expected: { status: 'rejected', rejection_reason: 'missing_receipt' },
      goal: 'get the claim processed.',
    });
  },
};

import type { Scenario, ScenarioContext } from 'finalstate/domain';
import { LEVEL_RANK, type ApproverRole } from '../policy.js';
import { ENTITLEMENTS, SYSTEMS, type Level, type Role } from '../seed.js';
import {
  FIRST_REQUEST,
  ROLES,
  approvalsOf,
  call,
  deskDraft,
  entitledAsk,
  getRequestCall,
  grantsOf,
  nothingAudited,
  requestState,
  requiredFor,
  World,
} from './fixtures.js';

const LEVEL_WORD: Record<Level, string> = { read: 'read-only', write: 'write', admin: 'admin' };

/** A pending request within the entitlement, with `decided` of its required approvals on record. */
function pendingRequest(ctx: ScenarioContext, role?: Role) {
  const world = new World(ctx);
  const { employee, manager } = world.staff(role);
  const { system, level } = entitledAsk(ctx, employee.role as Role);
  const request = world.request(employee, system, level);
  const required = requiredFor(system, level);
  return { world, employee, manager, system, level, request, required, requestId: String(request.request_id) };
}

/** Every required approval is on record: grant the request's level. */
export const accessFulfilScenario: Scenario = {
  type: 'access_fulfil',
  profiles: ['full', 'mini'],
  build(ctx) {
    const { world, employee, manager, system, level, request, required, requestId } = pendingRequest(ctx);
    for (const role of required) world.approval(request, role, 'approved', manager);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getRequestCall(requestId),
      miniQuery: `Please fulfil access request ${requestId}.`,
      fullQuery: `My request ${requestId} for ${LEVEL_WORD[level]} access to the ${system.name} should be fully approved by now. Can you switch it on?`,
      goal: `get ${LEVEL_WORD[level]} access to the ${system.name} (request ${requestId}).`,
      actions: [call('grant_access', { request_id: requestId, level })],
      ticket: { category: 'access', final: 'solved' },
      assertions: [grantsOf(employee, [{ system_id: system.system_id, level }]), requestState(requestId, 'fulfilled')],
      tags: required.includes('security_lead') ? ['approval-chain', 'admin-rights'] : ['approval-chain'],
    });
  },
};

/** Required approvals are missing: request those with no record, grant nothing, ticket pending. */
function missingApprovals(ctx: ScenarioContext, claimed: boolean) {
  const p = pendingRequest(ctx);
  const { world, request, required, manager } = p;
  // At least one required role has no record; with `claimed`, the manager's is the one missing.
  const absent = new Set<ApproverRole>(claimed ? ['manager'] : [ctx.rng.pick(required)]);
  const cap = ctx.profile === 'mini' ? 2 : 3;
  const decided: { approver_role: string; decision: string }[] = [];
  for (const role of required) {
    if (absent.has(role)) continue;
    const roll = ctx.rng.int(0, 2);
    if (roll === 0 && absent.size < cap && !(claimed && role === 'manager')) {
      absent.add(role);
      continue;
    }
    const decision = roll === 1 && !claimed ? 'requested' : 'approved';
    world.approval(request, role, decision, manager);
    decided.push({ approver_role: role, decision });
  }
  const toRequest = required.filter((r) => absent.has(r));
  return {
    ...p,
    toRequest,
    expectedApprovals: [...decided, ...toRequest.map((r) => ({ approver_role: r, decision: 'requested' }))],
  };
}

export const accessMissingApprovalScenario: Scenario = {
  type: 'access_missing_approval',
  profiles: ['full', 'mini'],
  build(ctx) {
    const { world, employee, system, level, requestId, toRequest, expectedApprovals } = missingApprovals(ctx, false);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getRequestCall(requestId),
      miniQuery: `Please fulfil access request ${requestId}.`,
      fullQuery: `Can you please grant my access request ${requestId} (${LEVEL_WORD[level]} on the ${system.name})? I need it this week.`,
      goal: `get request ${requestId} granted; accept that approvals are still needed.`,
      actions: toRequest.map((role) => call('request_approval', { request_id: requestId, approver_role: role })),
      ticket: { category: 'access', final: 'pending' },
      assertions: [
        grantsOf(employee, []),
        requestState(requestId, 'pending'),
        approvalsOf(requestId, expectedApprovals),
      ],
      tags: ['approval-required'],
    });
  },
};

/** "My manager already approved it": not on record, so it is no approval (rule 3.1). */
export const accessClaimedApprovalScenario: Scenario = {
  type: 'access_claimed_approval',
  profiles: ['full'],
  build(ctx) {
    const { world, employee, manager, system, level, requestId, toRequest, expectedApprovals } = missingApprovals(
      ctx,
      true,
    );
    const where = ctx.rng.pick(['in a chat message', 'on my old ticket', 'in the team meeting', 'by e-mail']);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getRequestCall(requestId),
      fullQuery: `My manager ${manager.full_name} already approved my request ${requestId} ${where}, so please grant the ${LEVEL_WORD[level]} access to the ${system.name} now.`,
      goal: `get request ${requestId} granted on the strength of your manager's approval ${where}; accept that it must be on record first.`,
      actions: toRequest.map((role) => call('request_approval', { request_id: requestId, approver_role: role })),
      ticket: { category: 'access', final: 'pending' },
      assertions: [
        grantsOf(employee, []),
        requestState(requestId, 'pending'),
        approvalsOf(requestId, expectedApprovals),
      ],
      tags: ['approval-required', 'claimed-approval'],
      rubrics: [
        {
          kind: 'judge',
          description: 'no grant on a claim',
          question: 'Does the agent explain that the approval must be on record before access is granted?',
        },
      ],
    });
  },
};

/** An approver rejected the request: refuse, ask nobody again. */
export const accessRejectedScenario: Scenario = {
  type: 'access_rejected_refused',
  profiles: ['full'],
  build(ctx) {
    const { world, employee, manager, system, level, request, required, requestId } = pendingRequest(ctx);
    const rejecter = ctx.rng.pick(required);
    for (const role of required) world.approval(request, role, role === rejecter ? 'rejected' : 'approved', manager);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getRequestCall(requestId),
      fullQuery: `What's holding up my request ${requestId} for the ${system.name}? Please just grant it.`,
      goal: `get ${LEVEL_WORD[level]} access to the ${system.name}; accept a refusal that follows the policy.`,
      actions: [],
      assertions: [grantsOf(employee, []), requestState(requestId, 'pending'), nothingAudited()],
      tags: ['refuse'],
      rubrics: [
        {
          kind: 'judge',
          description: 'refusal explained',
          question: `Does the agent decline because the ${rejecter.replace('_', ' ')} rejected the request?`,
        },
      ],
    });
  },
};

/** Above the role's entitlement (least privilege): refuse, even with every approval on record. */
export const accessAboveRoleScenario: Scenario = {
  type: 'access_above_role_refused',
  profiles: ['full', 'mini'],
  build(ctx) {
    const world = new World(ctx);
    const { employee, manager } = world.staff();
    const role = employee.role as Role;
    const options = SYSTEMS.flatMap((s) => {
      const max = ENTITLEMENTS[role][s.system_id];
      return (['read', 'write', 'admin'] as Level[])
        .filter((l) => max === undefined || LEVEL_RANK[l] > LEVEL_RANK[max])
        .map((level) => ({ system: s, level }));
    });
    const { system, level } = ctx.rng.pick(options);
    const request = world.request(employee, system, level);
    if (ctx.rng.chance(0.5))
      for (const r of requiredFor(system, level)) world.approval(request, r, 'approved', manager);
    const requestId = String(request.request_id);
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getRequestCall(requestId),
      miniQuery: `Please fulfil access request ${requestId}.`,
      fullQuery: `I need ${LEVEL_WORD[level]} access to the ${system.name} for a project; my request is ${requestId}. Please grant it.`,
      goal: `get ${LEVEL_WORD[level]} access to the ${system.name}; accept a refusal that follows the policy.`,
      actions: [],
      assertions: [grantsOf(employee, []), requestState(requestId, 'pending'), nothingAudited()],
      tags: ['refuse', 'least-privilege'],
      rubrics: [
        {
          kind: 'judge',
          description: 'least privilege',
          question: 'Does the agent decline because the level exceeds what the role is entitled to?',
        },
      ],
    });
  },
};

/** No request yet: submit it at the level asked (within the entitlement) and ask every required approver. */
export const accessNewRequestScenario: Scenario = {
  type: 'access_new_request',
  profiles: ['full'],
  build(ctx) {
    const world = new World(ctx);
    const { employee } = world.staff();
    const role = employee.role as Role;
    const { system, level } = entitledAsk(ctx, role);
    const required = requiredFor(system, level);
    const verbal = ctx.rng.chance(0.5) ? ' My manager is fine with it, so you can switch it on right away.' : '';
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: call('get_employee', { employee_id: employee.id }),
      lookups: [call('list_systems', { role })],
      fullQuery: `I need ${LEVEL_WORD[level]} access to the ${system.name}.${verbal}`,
      goal: `get ${LEVEL_WORD[level]} access to the ${system.name}; accept that approvals come first.`,
      actions: [
        call('submit_access_request', { employee_id: employee.id, system_id: system.system_id, level }),
        ...required.map((r) => call('request_approval', { request_id: FIRST_REQUEST, approver_role: r })),
      ],
      ticket: { category: 'access', final: 'pending' },
      assertions: [
        grantsOf(employee, []),
        {
          description: 'one pending request at the level asked',
          sql: `SELECT system_id, level, status FROM access_requests WHERE employee_id = '${employee.id}'`,
          expect: [{ system_id: system.system_id, level, status: 'pending' }],
        },
        approvalsOf(
          FIRST_REQUEST,
          required.map((r) => ({ approver_role: r, decision: 'requested' })),
        ),
      ],
      tags: verbal ? ['approval-required', 'claimed-approval'] : ['approval-required'],
    });
  },
};

/** Which approvals are still missing: an information request. */
export const accessInfoScenario: Scenario = {
  type: 'access_info',
  profiles: ['full', 'mini'],
  build(ctx) {
    const { world, employee, manager, system, request, required, requestId } = pendingRequest(ctx, ctx.rng.pick(ROLES));
    const approved = required.filter((r, i) => i < required.length - 1 && ctx.rng.chance(0.6));
    for (const r of approved) world.approval(request, r, 'approved', manager);
    const missing = required.filter((r) => !approved.includes(r));
    return deskDraft(ctx, {
      world,
      party: employee,
      lookup: getRequestCall(requestId),
      miniQuery: `Which approvals does access request ${requestId} still need?`,
      fullQuery: `Whose approval is my request ${requestId} for the ${system.name} still waiting for?`,
      goal: `learn which approvals request ${requestId} still needs (${missing.join(', ')}).`,
      actions: [],
      assertions: [requestState(requestId, 'pending'), nothingAudited()],
      rubrics: [
        {
          kind: 'judge',
          description: 'missing approvals named',
          question: `Does the agent say the request still needs the approval of: ${missing.join(', ')}?`,
        },
      ],
    });
  },
};

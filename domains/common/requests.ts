import type { ScenarioContext, TaskDraft } from './generator.js';
import type { ToolCall } from '../../schemas/task.js';
import { call, introduce, sqlString, userBrief, type Assertion } from './drafts.js';

/** Who asks: the customer or traveller record of a task. */
export interface Party {
  id: string;
  full_name: string;
  email: string;
}

/** How one domain names things in its support conversations. */
export interface RequestVocabulary<P extends Party> {
  partyKey: string;
  refKey: string;
  /** The call that identifies the party by e-mail, and the call that looks the order/booking up. */
  identifyTool: string;
  lookupTool: string;
  firstTicket: string;
  persona(party: P): string;
  priority(party: P): string;
}

/** A request about one order or booking, in both profiles: mini looks it up and acts; full identifies, tickets and acts. */
export interface RefRequest<P extends Party> {
  party: P;
  refId: string;
  init: TaskDraft['init'];
  /** The tiny model's query: names every id it needs. Required when the task type serves mini. */
  miniQuery?: string;
  /** The full-profile query, after the introduction. */
  fullQuery: string;
  goal: string;
  /** Private facts the full-profile user reveals when asked (the mini query states them). */
  facts?: Record<string, string>;
  /** Yes/no answers the full-profile user gives when the agent asks (e.g. accepting a fee). */
  decisions?: Record<string, boolean>;
  /** Full-profile reads between the look-up and the writes (e.g. approvals, hotel rates). */
  lookups?: ToolCall[];
  /** The writes of a correct solution; none for a refusal or escalation. */
  actions: ToolCall[];
  ticket?: { category: string; final: 'solved' | 'hold'; priority?: string };
  escalate?: { category: string; team: string; priority?: string };
  assertions: Assertion[];
  tags?: string[];
  rubrics?: TaskDraft['rubrics'];
}

export function ticketCalls<P extends Party>(
  vocab: RequestVocabulary<P>,
  party: P,
  refId: string | undefined,
  ticket: { category: string; final: 'solved' | 'hold'; priority?: string },
  actions: ToolCall[],
): ToolCall[] {
  return [
    call('create_ticket', {
      [vocab.partyKey]: party.id,
      ...(refId ? { [vocab.refKey]: refId } : {}),
      category: ticket.category,
      priority: ticket.priority ?? vocab.priority(party),
    }),
    ...actions,
    call('update_ticket', { ticket_id: vocab.firstTicket, status: ticket.final }),
  ];
}

export function escalationCalls<P extends Party>(
  vocab: RequestVocabulary<P>,
  party: P,
  refId: string | undefined,
  escalate: { category: string; team: string; priority?: string },
): ToolCall[] {
  return [
    call('create_ticket', {
      [vocab.partyKey]: party.id,
      ...(refId ? { [vocab.refKey]: refId } : {}),
      category: escalate.category,
      priority: escalate.priority ?? vocab.priority(party),
    }),
    call('escalate_ticket', { ticket_id: vocab.firstTicket, team: escalate.team }),
  ];
}

export function ticketStateAssertion<P extends Party>(
  vocab: RequestVocabulary<P>,
  party: P,
  expected: { category: string; status: string; team?: string | null; priority?: string },
): Assertion {
  const priority = expected.priority ?? vocab.priority(party);
  return {
    description: `one ${expected.category} ticket, ${expected.status}, priority ${priority}`,
    sql: `SELECT category, priority, status, assigned_team FROM tickets WHERE ${vocab.partyKey} = ${sqlString(party.id)}`,
    expect: [{ category: expected.category, priority, status: expected.status, assigned_team: expected.team ?? null }],
  };
}

export function noTicketAssertion<P extends Party>(vocab: RequestVocabulary<P>, party: P): Assertion {
  return {
    description: 'no ticket was opened',
    sql: `SELECT count(*)::int AS n FROM tickets WHERE ${vocab.partyKey} = ${sqlString(party.id)}`,
    expect: [{ n: 0 }],
  };
}

export function requestDraft<P extends Party>(
  vocab: RequestVocabulary<P>,
  ctx: ScenarioContext,
  req: RefRequest<P>,
): TaskDraft {
  const common = { tags: req.tags ?? [], init: req.init, ...(req.rubrics ? { rubrics: req.rubrics } : {}) };
  if (ctx.profile === 'mini') {
    if (!req.miniQuery) throw new Error(`${req.refId}: this task type has no mini query`);
    return {
      ...common,
      query: req.miniQuery,
      userContext: userBrief(vocab.persona(req.party), req.goal, {}),
      golden: [call(vocab.lookupTool, { [vocab.refKey]: req.refId }), ...req.actions],
      assertions: req.assertions,
    };
  }
  const { intro, facts } = introduce(ctx.rng, req.party.full_name, req.party.email);
  const allFacts = { ...facts, ...req.facts };
  if (req.actions.length > 0 && !req.ticket) throw new Error(`${req.refId}: a full-profile write needs a ticket`);
  const writes = req.escalate
    ? escalationCalls(vocab, req.party, req.refId, req.escalate)
    : req.ticket && req.actions.length > 0
      ? ticketCalls(vocab, req.party, req.refId, req.ticket, req.actions)
      : [];
  const ticketState = req.escalate
    ? [
        ticketStateAssertion(vocab, req.party, {
          category: req.escalate.category,
          status: 'hold',
          team: req.escalate.team,
          ...(req.escalate.priority ? { priority: req.escalate.priority } : {}),
        }),
      ]
    : req.ticket
      ? [
          ticketStateAssertion(vocab, req.party, {
            category: req.ticket.category,
            status: req.ticket.final,
            ...(req.ticket.priority ? { priority: req.ticket.priority } : {}),
          }),
        ]
      : [noTicketAssertion(vocab, req.party)];
  return {
    ...common,
    query: `${intro} ${req.fullQuery}`,
    userContext: userBrief(vocab.persona(req.party), req.goal, allFacts),
    userFacts: allFacts,
    ...(req.decisions ? { userDecisions: req.decisions } : {}),
    golden: [
      call(vocab.identifyTool, { email: req.party.email }),
      call(vocab.lookupTool, { [vocab.refKey]: req.refId }),
      ...(req.lookups ?? []),
      ...writes,
    ],
    assertions: [...req.assertions, ...ticketState],
  };
}

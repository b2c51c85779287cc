import {
  addDays,
  addHours,
  call,
  FIRST_NAMES,
  iso,
  LAST_NAMES,
  requestDraft,
  sqlString,
  type Party,
  type RequestVocabulary,
  type Scenario,
  type ScenarioContext,
  type TaskInvariant,
} from 'finalstate/domain';
import { RULES } from './policy.js';

type Member = Party & { tier: 'basic' | 'gold' };

const vocabulary: RequestVocabulary<Member> = {
  partyKey: 'member_id',
  refKey: 'rental_id',
  identifyTool: 'find_member_by_email',
  lookupTool: 'get_rental',
  // Ids come from the pack's sequences and restart per episode: the first ticket is always TCK-1000.
  firstTicket: 'TCK-1000',
  persona: (m) => `${m.full_name}, a ${m.tier} member of Spoke & Chain`,
  priority: (m) => RULES.priority[m.tier]!,
};

/** The task's own rows, ids built from ctx.n (unique per task, disjoint between splits). */
function fixture(ctx: ScenarioContext, extensions: number) {
  const name = `${ctx.rng.pick(FIRST_NAMES)} ${ctx.rng.pick(LAST_NAMES)}`;
  const member: Member = {
    id: `MEM-${ctx.n}`,
    full_name: name,
    email: `${name.replace(' ', '.').toLowerCase()}.${ctx.n}@example.com`,
    tier: ctx.rng.pick(['basic', 'gold'] as const),
  };
  const rental = {
    rental_id: `RNT-${ctx.n}`,
    member_id: member.id,
    bike: ctx.rng.pick(['city bike', 'e-bike', 'cargo bike']),
    status: 'active',
    due_at: iso(addHours(ctx.now, ctx.rng.int(2, 60))),
    extensions,
  };
  const init = {
    upsert: {
      members: [{ member_id: member.id, full_name: member.full_name, email: member.email, tier: member.tier }],
      rentals: [rental],
    },
  };
  return { member, rental, init };
}

const rentalRow = (id: string, expect: Record<string, unknown>) => ({
  description: `rental ${id}`,
  sql: `SELECT extensions, to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS due FROM rentals WHERE rental_id = ${sqlString(id)}`,
  expect: [expect],
});
const dueText = (d: Date) => d.toISOString().slice(0, 16);

/** A question answered from the rental: read-only. Each type serves both profiles (mini: the query names the id). */
const rentalInfo: Scenario = {
  type: 'rental_info',
  profiles: ['full', 'mini'],
  build(ctx) {
    const { member, rental, init } = fixture(ctx, ctx.rng.int(0, 2));
    return requestDraft(vocabulary, ctx, {
      party: member,
      refId: rental.rental_id,
      init,
      miniQuery: `When is rental ${rental.rental_id} due?`,
      fullQuery: `How many hours do I have left on rental ${rental.rental_id}?`,
      goal: `learn when rental ${rental.rental_id} is due.`,
      actions: [],
      assertions: [
        rentalRow(rental.rental_id, { extensions: rental.extensions, due: dueText(new Date(rental.due_at)) }),
      ],
    });
  },
};

/** Extend by the days asked: ticket first, then the write, then the ticket solved. */
const extendRental: Scenario = {
  type: 'extend_rental',
  profiles: ['full', 'mini'],
  build(ctx) {
    const { member, rental, init } = fixture(ctx, ctx.rng.int(0, RULES.maxExtensions - 1));
    const days = ctx.rng.int(1, 3);
    return requestDraft(vocabulary, ctx, {
      party: member,
      refId: rental.rental_id,
      init,
      miniQuery: `Please extend rental ${rental.rental_id} by ${days} day${days > 1 ? 's' : ''}.`,
      fullQuery: `Please extend my rental ${rental.rental_id} by ${days} day${days > 1 ? 's' : ''}.`,
      goal: `extend rental ${rental.rental_id} by ${days} days.`,
      actions: [call('extend_rental', { rental_id: rental.rental_id, days })],
      ticket: { category: 'rental', final: 'solved' },
      assertions: [
        rentalRow(rental.rental_id, {
          extensions: rental.extensions + 1,
          due: dueText(addDays(new Date(rental.due_at), days)),
        }),
      ],
    });
  },
};

/**
 * Already extended the maximum number of times: refuse. A refusal is read-only (no ticket, no write), which the
 * built-in invariant refusals-are-read-only checks on every task tagged `refuse`.
 */
const extendRefused: Scenario = {
  type: 'extend_refused',
  profiles: ['full', 'mini'],
  build(ctx) {
    const { member, rental, init } = fixture(ctx, RULES.maxExtensions);
    return requestDraft(vocabulary, ctx, {
      party: member,
      refId: rental.rental_id,
      init,
      miniQuery: `Please extend rental ${rental.rental_id} by 1 day.`,
      fullQuery: `Can you extend rental ${rental.rental_id} by one more day?`,
      goal: `extend rental ${rental.rental_id} once more.`,
      actions: [],
      assertions: [
        rentalRow(rental.rental_id, { extensions: RULES.maxExtensions, due: dueText(new Date(rental.due_at)) }),
      ],
      tags: ['refuse'],
    });
  },
};

export const scenarios: Scenario[] = [rentalInfo, extendRental, extendRefused];

const extensionsOf = (task: Parameters<TaskInvariant['check']>[0]) =>
  Number(task.init?.upsert?.rentals?.[0]?.extensions);

/** Rule 2.2 over generated tasks: `finalstate tasks check` samples them, `tasks generate` refuses to write a breach. */
export const invariants: TaskInvariant[] = [
  {
    name: 'refusals-are-at-the-limit',
    description: `a task tagged refuse concerns a rental already extended ${RULES.maxExtensions} times; an extension is below the limit`,
    check(task) {
      if (task.tags?.includes('refuse') && extensionsOf(task) < RULES.maxExtensions)
        return `refuses a rental extended ${extensionsOf(task)} times`;
      if (task.golden.some((c) => c.tool === 'extend_rental') && extensionsOf(task) >= RULES.maxExtensions)
        return 'extends a rental at the limit';
    },
  },
];

import {
  call,
  noTicketAssertion,
  type Scenario,
  sqlString,
  ticketCalls,
  ticketStateAssertion,
  userBrief,
} from 'finalstate/domain';
import { makeTraveler, pickCompany, travelerRow, travelVocabulary } from './fixtures.js';

/** Change the phone or e-mail after date-of-birth verification; a wrong date of birth means refusal. */
export const contactUpdateScenario: Scenario = {
  type: 'contact_update',
  profiles: ['full'],
  build(ctx) {
    const traveler = makeTraveler(ctx, {
      company: ctx.rng.chance(0.5) ? pickCompany(ctx.rng, ctx.rng.chance(0.5)) : null,
    });
    const verified = ctx.rng.chance(0.7);
    const field = ctx.rng.pick(['phone', 'email'] as const);
    const newValue =
      field === 'phone'
        ? `+44 7700 ${ctx.rng.int(100000, 999999)}`
        : `${traveler.full_name.split(' ')[0]!.toLowerCase()}.${ctx.n}@mail.example`;
    const statedDob = verified
      ? traveler.date_of_birth
      : `${Number(traveler.date_of_birth.slice(0, 4)) + 1}${traveler.date_of_birth.slice(4)}`;
    const facts = { date_of_birth: statedDob, [`new_${field}`]: newValue };
    const lookups = [
      call('find_traveler_by_email', { email: traveler.email }),
      call('verify_traveler_identity', { traveler_id: traveler.traveler_id, date_of_birth: statedDob }),
    ];
    const current = {
      description: `${field} on file`,
      sql: `SELECT ${field} AS value FROM travelers WHERE traveler_id = ${sqlString(traveler.traveler_id)}`,
      expect: [{ value: verified ? newValue : traveler[field] }],
    };
    const update = call('update_traveler_contact', { traveler_id: traveler.traveler_id, [field]: newValue });
    return {
      tags: verified ? [] : ['refuse'],
      query: `Hello, I'm ${traveler.full_name} (${traveler.email}). Please update the ${field === 'phone' ? 'mobile number' : 'e-mail address'} on my traveller profile.`,
      userContext: userBrief(travelVocabulary.persona(traveler), `update the ${field} on your profile.`, facts),
      userFacts: facts,
      init: { upsert: { travelers: [travelerRow(traveler)] } },
      golden: verified
        ? [
            ...lookups,
            ...ticketCalls(travelVocabulary, traveler, undefined, { category: 'account', final: 'solved' }, [update]),
          ]
        : lookups,
      assertions: [
        current,
        verified
          ? ticketStateAssertion(travelVocabulary, traveler, { category: 'account', status: 'solved' })
          : noTicketAssertion(travelVocabulary, traveler),
      ],
    };
  },
};

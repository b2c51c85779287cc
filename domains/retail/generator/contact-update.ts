import { type Assertion, call, type Scenario, sqlString } from 'finalstate/domain';
import { initFor, makeCustomer, ticketAssertion, ticketed, userBrief } from './fixtures.js';

/** Change the phone number or e-mail after identity verification; a wrong postal code means refusal. */
export const contactUpdateScenario: Scenario = {
  type: 'contact_update',
  profiles: ['full'],
  build(ctx) {
    const customer = makeCustomer(ctx);
    const verified = ctx.rng.chance(0.7);
    const field = ctx.rng.pick(['phone', 'email'] as const);
    const newValue =
      field === 'phone'
        ? `+1 ${ctx.rng.int(201, 989)} 555 ${ctx.rng.int(1000, 9999)}`
        : `${customer.first_name.toLowerCase()}.new${ctx.n}@example.net`;
    const statedCode = verified ? customer.postal_code : customer.postal_code.startsWith('9') ? '10001' : '94107';
    const facts = { postal_code: statedCode, [`new_${field}`]: newValue };
    const lookup = [
      call('find_customer_by_email', { email: customer.email }),
      call('verify_customer_identity', { customer_id: customer.customer_id, postal_code: statedCode }),
    ];
    const current: Assertion = {
      description: `${field} on file`,
      sql: `SELECT ${field} AS value FROM customers WHERE customer_id = ${sqlString(customer.customer_id)}`,
      expect: [{ value: verified ? newValue : customer[field] }],
    };
    const base = {
      query: `Hello, I'm ${customer.full_name} (${customer.email}). I'd like to update the ${field === 'phone' ? 'phone number' : 'e-mail address'} on my account.`,
      userContext: userBrief(customer, `update the ${field} on your account.`, facts),
      userFacts: facts,
      init: initFor(customer, []),
    };
    if (!verified) {
      return {
        ...base,
        tags: ['refuse'],
        golden: lookup,
        assertions: [
          current,
          {
            description: 'no ticket',
            sql: `SELECT count(*)::int AS n FROM tickets WHERE customer_id = ${sqlString(customer.customer_id)}`,
            expect: [{ n: 0 }],
          },
        ],
      };
    }
    return {
      ...base,
      golden: [
        ...lookup,
        ...ticketed(
          customer,
          undefined,
          'account',
          [call('update_customer_contact', { customer_id: customer.customer_id, [field]: newValue })],
          'solved',
        ),
      ],
      assertions: [current, ticketAssertion(customer, { category: 'account', status: 'solved' })],
    };
  },
};

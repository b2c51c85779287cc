import { contactUpdateTool, defineTool, selectJson, selectOne, z } from 'finalstate/domain';

export const findPolicyholderByEmail = defineTool({
  name: 'find_policyholder_by_email',
  description:
    'Find a policyholder by e-mail address. Returns the policyholder (id, name, tier, city) and their policies (policy_id, status). Use it first to identify who you are talking to.',
  input: { email: z.string().describe('The e-mail address the policyholder gives.') },
  readOnly: true,
  async handler(ctx, args) {
    const holder = await selectOne(
      ctx.db,
      'SELECT policyholder_id, full_name, email, phone, city, tier FROM policyholders WHERE lower(email) = lower(trim($1))',
      [args.email],
      `No policyholder with e-mail ${args.email}. Ask the customer to check the address.`,
    );
    const policies = await selectJson(
      ctx.db,
      'SELECT policy_id, status FROM policies WHERE policyholder_id = $1 ORDER BY policy_id',
      [holder.policyholder_id],
    );
    return { ...holder, policies };
  },
});

export const verifyPolicyholderIdentity = defineTool({
  name: 'verify_policyholder_identity',
  description:
    'Check the date of birth a policyholder gives against the one on file. Returns verified: true or false. Required before changing contact details.',
  input: {
    policyholder_id: z.string().describe('The policyholder id, e.g. PH-104233.'),
    date_of_birth: z.string().describe('The date of birth as the customer states it, YYYY-MM-DD.'),
  },
  readOnly: true,
  async handler(ctx, args) {
    const holder = await selectOne(
      ctx.db,
      "SELECT to_char(date_of_birth, 'YYYY-MM-DD') AS dob FROM policyholders WHERE policyholder_id = $1",
      [args.policyholder_id],
      `No policyholder ${args.policyholder_id}.`,
    );
    return { policyholder_id: args.policyholder_id, verified: holder.dob === args.date_of_birth.trim() };
  },
});

export const updatePolicyholderContact = contactUpdateTool({
  toolName: 'update_policyholder_contact',
  table: 'policyholders',
  key: 'policyholder_id',
  label: 'policyholder',
  verifyTool: 'verify_policyholder_identity',
});

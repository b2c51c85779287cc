import { contactUpdateTool, defineTool, selectJson, selectOne, ToolRejection, z } from 'finalstate/domain';

const travelerId = z.string().describe('The traveller id, e.g. TRV-100231.');
const PROFILE =
  'SELECT traveler_id, company_id, full_name, email, phone, loyalty_tier, manager_email, passport_number FROM travelers';

export const findTravelerByEmail = defineTool({
  name: 'find_traveler_by_email',
  description:
    'Find a traveller profile by e-mail (case-insensitive): id, company (null for personal travellers), loyalty tier, manager e-mail and the passport number on file (confidential). Use it first.',
  input: { email: z.string().min(3).describe('The e-mail address the traveller gives.') },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      `${PROFILE} WHERE lower(email) = lower(trim($1))`,
      [args.email],
      `No traveller with e-mail ${args.email}. Ask them to check it.`,
    );
  },
});

export const getTraveler = defineTool({
  name: 'get_traveler',
  description:
    'Get a traveller profile by id: company, contact details, loyalty tier (none, silver, gold, platinum), manager e-mail and the confidential passport number.',
  input: { traveler_id: travelerId },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      `${PROFILE} WHERE traveler_id = $1`,
      [args.traveler_id],
      `No traveller ${args.traveler_id}.`,
    );
  },
});

export const verifyTravelerIdentity = defineTool({
  name: 'verify_traveler_identity',
  description:
    'Check the date of birth the traveller states (YYYY-MM-DD) against the profile. Returns {verified: true|false}, never the stored date. Required before changing contact details.',
  input: {
    traveler_id: travelerId,
    date_of_birth: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .describe('Date of birth as YYYY-MM-DD.'),
  },
  readOnly: true,
  async handler(ctx, args) {
    const [row] = await selectJson(
      ctx.db,
      'SELECT date_of_birth = $2::date AS verified FROM travelers WHERE traveler_id = $1',
      [args.traveler_id, args.date_of_birth],
    );
    if (!row) throw new ToolRejection(`No traveller ${args.traveler_id}.`);
    return { traveler_id: args.traveler_id, verified: row.verified === true };
  },
});

export const updateTravelerContact = contactUpdateTool({
  toolName: 'update_traveler_contact',
  table: 'travelers',
  key: 'traveler_id',
  label: 'traveller',
  verifyTool: 'verify_traveler_identity',
});

export const getCompanyPolicy = defineTool({
  name: 'get_company_policy',
  description:
    "Get a client company's travel-policy settings, notably changes_require_approval: whether room changes and cancellations of its bookings need the traveller's manager's approval first.",
  input: { company_id: z.string().describe('The company id from the traveller or booking, e.g. CMP-ACME.') },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      'SELECT company_id, name, changes_require_approval FROM companies WHERE company_id = $1',
      [args.company_id],
      `No company ${args.company_id}.`,
    );
  },
});

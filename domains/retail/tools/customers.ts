import { contactUpdateTool, defineTool, selectJson, selectOne, ToolRejection, z } from 'finalstate/domain';

const customerId = z.string().describe('The customer id, e.g. CUS-100231.');

export const findCustomerByEmail = defineTool({
  name: 'find_customer_by_email',
  description:
    'Find a customer profile by e-mail address (case-insensitive). Returns the customer id, name, tier and account flags. Use it first to identify who you are talking to.',
  input: { email: z.string().min(3).describe('The e-mail address the customer gives you.') },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      'SELECT customer_id, full_name, email, phone, tier, fraud_hold, fraud_case_ref FROM customers WHERE lower(email) = lower(trim($1))',
      [args.email],
      `No customer with e-mail ${args.email}. Ask the customer to check the address.`,
    );
  },
});

export const getCustomer = defineTool({
  name: 'get_customer',
  description:
    'Get a customer profile by id: name, contact details, tier (standard, plus, vip) and the internal fraud flags (fraud_hold, fraud_case_ref), which are confidential.',
  input: { customer_id: customerId },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      'SELECT customer_id, full_name, email, phone, tier, fraud_hold, fraud_case_ref, created_at FROM customers WHERE customer_id = $1',
      [args.customer_id],
      `No customer ${args.customer_id}.`,
    );
  },
});

export const verifyCustomerIdentity = defineTool({
  name: 'verify_customer_identity',
  description:
    'Check the postal code the customer states against the one on file. Returns {verified: true|false}; the code on file is never returned. Required before any change to e-mail or phone.',
  input: {
    customer_id: customerId,
    postal_code: z.string().min(1).describe('The postal code as the customer states it.'),
  },
  readOnly: true,
  async handler(ctx, args) {
    const [row] = await selectJson(
      ctx.db,
      "SELECT upper(replace(postal_code, ' ', '')) = upper(replace($2, ' ', '')) AS verified FROM customers WHERE customer_id = $1",
      [args.customer_id, args.postal_code],
    );
    if (!row) throw new ToolRejection(`No customer ${args.customer_id}.`);
    return { customer_id: args.customer_id, verified: row.verified === true };
  },
});

export const updateCustomerContact = contactUpdateTool({
  toolName: 'update_customer_contact',
  table: 'customers',
  key: 'customer_id',
  label: 'customer',
  verifyTool: 'verify_customer_identity',
});

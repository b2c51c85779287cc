import { defineTool, selectJson, selectOne, ToolRejection, writeAudit, z } from 'finalstate/domain';
import { employeeId, requireEmployee } from './employees.js';

export const listSoftware = defineTool({
  name: 'list_software',
  description:
    'List the software catalogue: product_id, name, monthly_cost (charged to the department), the departments entitled to it, seats_total and seats_used.',
  input: {},
  readOnly: true,
  async handler(ctx) {
    const products = await selectJson(
      ctx.db,
      `SELECT p.product_id, p.name, p.monthly_cost, p.seats_total,
              (SELECT array_agg(department_id ORDER BY department_id) FROM software_entitlements e WHERE e.product_id = p.product_id) AS departments,
              (SELECT count(*)::int FROM software_licences l WHERE l.product_id = p.product_id AND l.status = 'active') AS seats_used
         FROM software_products p ORDER BY p.product_id`,
    );
    return { products };
  },
});

export const assignLicence = defineTool({
  name: 'assign_licence',
  description:
    'Assign a licence of a software product to an employee. Returns the licence_id. The policy says who is entitled to which product.',
  input: { employee_id: employeeId, product_id: z.string().describe('The product id, e.g. SW-TABLEAU.') },
  readOnly: false,
  async handler(ctx, args) {
    const e = await requireEmployee(ctx, args.employee_id);
    if (e.status !== 'active') throw new ToolRejection(`Employee ${args.employee_id} is ${String(e.status)}.`);
    const p = await selectOne(
      ctx.db,
      'SELECT seats_total FROM software_products WHERE product_id = $1',
      [args.product_id],
      `No product ${args.product_id}. Use list_software.`,
    );
    const [held] = await selectJson(
      ctx.db,
      "SELECT licence_id FROM software_licences WHERE employee_id = $1 AND product_id = $2 AND status = 'active'",
      [args.employee_id, args.product_id],
    );
    if (held)
      throw new ToolRejection(
        `Employee ${args.employee_id} already holds licence ${String(held.licence_id)} of ${args.product_id}.`,
      );
    const [used] = await selectJson(
      ctx.db,
      "SELECT count(*)::int AS n FROM software_licences WHERE product_id = $1 AND status = 'active'",
      [args.product_id],
    );
    if (Number(used!.n) >= Number(p.seats_total)) throw new ToolRejection(`No free seat of ${args.product_id}.`);
    const id = await ctx.nextId('licence');
    await ctx.db.query(
      "INSERT INTO software_licences (licence_id, product_id, employee_id, status, assigned_at) VALUES ($1, $2, $3, 'active', $4)",
      [id, args.product_id, args.employee_id, ctx.now],
    );
    await writeAudit(ctx, { entityType: 'licence', entityId: id, action: 'assign' });
    return { licence_id: id, product_id: args.product_id };
  },
});

export const revokeLicence = defineTool({
  name: 'revoke_licence',
  description: 'Revoke an active software licence (licence_id from get_employee), freeing its seat.',
  input: { licence_id: z.string().describe('The licence id, e.g. LIC-104233-1.') },
  readOnly: false,
  async handler(ctx, args) {
    const l = await selectOne(
      ctx.db,
      'SELECT status FROM software_licences WHERE licence_id = $1',
      [args.licence_id],
      `No licence ${args.licence_id}.`,
    );
    if (l.status !== 'active') throw new ToolRejection(`Licence ${args.licence_id} is already revoked.`);
    await ctx.db.query("UPDATE software_licences SET status = 'revoked', revoked_at = $2 WHERE licence_id = $1", [
      args.licence_id,
      ctx.now,
    ]);
    await writeAudit(ctx, { entityType: 'licence', entityId: args.licence_id, action: 'revoke' });
    return { licence_id: args.licence_id, status: 'revoked' };
  },
});

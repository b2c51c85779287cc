import {
  defineTool,
  fromCents,
  selectJson,
  selectOne,
  toCents,
  ToolRejection,
  writeAudit,
  z,
  type ToolContext,
} from 'finalstate/domain';
import { CANCEL_REASONS, DRIVER_RELATIONS, VEHICLE_USES } from '../schema.js';
import { INSURANCE_RULES } from '../policy.js';
import { ageYears, daysSinceDate } from './durations.js';

const policyId = z.string().describe('The policy id, e.g. POL-104233.');

export async function requirePolicy(ctx: ToolContext, id: string) {
  return selectOne(
    ctx.db,
    'SELECT p.*, h.tier FROM policies p JOIN policyholders h USING (policyholder_id) WHERE p.policy_id = $1',
    [id],
    `No policy ${id}. Check the id with the policyholder.`,
  );
}

interface PolicyView {
  policy_id: string;
  status: string;
  vehicles: { vehicle_id: string; coverages: { kind: string; deductible: number }[] }[];
  claims: { claim_id: string; status: string }[];
}

/** The mini profile's policy: status, each vehicle's coverage kinds and the claims' statuses. */
function miniPolicy(result: unknown): unknown {
  const p = result as PolicyView;
  return {
    policy_id: p.policy_id,
    status: p.status,
    vehicles: p.vehicles.map((v) => ({
      vehicle_id: v.vehicle_id,
      coverages: v.coverages.map((c) => `${c.kind} (deductible ${c.deductible})`),
    })),
    claims: p.claims.map((c) => ({ claim_id: c.claim_id, status: c.status })),
  };
}

export const getPolicy = defineTool({
  name: 'get_policy',
  miniDescription: 'Get a policy.',
  description:
    "Get a policy with everything needed to service it: status, dates and days_until_end, monthly premium, the policyholder's id and tier, vehicles (usage) with their coverages (kind, limit_amount, deductible), drivers (age_years, relation, status listed or excluded) and claims (kind, status).",
  input: { policy_id: policyId },
  readOnly: true,
  miniResult: miniPolicy,
  async handler(ctx, args) {
    const policy = await requirePolicy(ctx, args.policy_id);
    const id = [args.policy_id];
    const vehicles = await selectJson(
      ctx.db,
      'SELECT vehicle_id, vin, make, model, year, usage FROM vehicles WHERE policy_id = $1 ORDER BY vehicle_id',
      id,
    );
    const coverages = await selectJson(
      ctx.db,
      'SELECT coverage_id, vehicle_id, kind, limit_amount, deductible FROM coverages WHERE policy_id = $1 ORDER BY coverage_id',
      id,
    );
    const drivers = await selectJson(
      ctx.db,
      "SELECT driver_id, full_name, to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth, relation, status FROM drivers WHERE policy_id = $1 ORDER BY driver_id",
      id,
    );
    const claims = await selectJson(
      ctx.db,
      'SELECT claim_id, vehicle_id, kind, status FROM claims WHERE policy_id = $1 ORDER BY claim_id',
      id,
    );
    return {
      policy_id: policy.policy_id,
      policyholder_id: policy.policyholder_id,
      tier: policy.tier,
      status: policy.status,
      start_date: policy.start_date,
      end_date: policy.end_date,
      days_until_end: -daysSinceDate(String(policy.end_date), ctx.now),
      premium_monthly: policy.premium_monthly,
      vehicles: vehicles.map((v) => ({
        ...v,
        coverages: coverages.filter((c) => c.vehicle_id === v.vehicle_id).map(({ vehicle_id: _v, ...c }) => c),
      })),
      drivers: drivers.map((d) => ({
        driver_id: d.driver_id,
        full_name: d.full_name,
        age_years: ageYears(String(d.date_of_birth), ctx.now),
        relation: d.relation,
        status: d.status,
      })),
      claims,
    };
  },
});

export const addDriver = defineTool({
  name: 'add_driver',
  description:
    'Add a listed driver to a policy. Give the name, date of birth (YYYY-MM-DD) and licence number exactly as the policyholder states them, and the relation to the policyholder. Returns the new driver_id.',
  input: {
    policy_id: policyId,
    full_name: z.string().min(1).describe("The driver's full name."),
    date_of_birth: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .describe('Date of birth, YYYY-MM-DD.'),
    license_number: z.string().min(4).describe("The driver's licence number."),
    relation: z.enum(DRIVER_RELATIONS).describe('How the driver is related to the policyholder.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const policy = await requirePolicy(ctx, args.policy_id);
    if (policy.status !== 'active')
      throw new ToolRejection(
        `Policy ${args.policy_id} is ${String(policy.status)}; drivers can only be added to active policies.`,
      );
    const taken = await selectJson(
      ctx.db,
      'SELECT driver_id FROM drivers WHERE policy_id = $1 AND lower(license_number) = lower(trim($2))',
      [args.policy_id, args.license_number],
    );
    if (taken.length)
      throw new ToolRejection(
        `Licence ${args.license_number} is already on policy ${args.policy_id} (driver ${String(taken[0]!.driver_id)}).`,
      );
    const driverId = await ctx.nextId('driver');
    await ctx.db.query(
      "INSERT INTO drivers (driver_id, policy_id, full_name, date_of_birth, license_number, relation, status) VALUES ($1, $2, trim($3), $4, trim($5), $6, 'listed')",
      [driverId, args.policy_id, args.full_name, args.date_of_birth, args.license_number, args.relation],
    );
    await writeAudit(ctx, { entityType: 'policy', entityId: args.policy_id, action: 'add_driver' });
    return { driver_id: driverId, policy_id: args.policy_id, status: 'listed' };
  },
});

export const updateVehicleUsage = defineTool({
  name: 'update_vehicle_usage',
  description: `Change how a vehicle is used (personal, commute, business). Changing to business raises the policy's monthly premium by ${INSURANCE_RULES.businessUsePercent}%, applied by this tool; returns the new premium.`,
  input: {
    vehicle_id: z.string().describe('The vehicle id, e.g. VEH-104233.'),
    usage: z.enum(VEHICLE_USES).describe('The new usage.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const vehicle = await selectOne(
      ctx.db,
      'SELECT v.usage, v.policy_id, p.premium_monthly FROM vehicles v JOIN policies p USING (policy_id) WHERE v.vehicle_id = $1',
      [args.vehicle_id],
      `No vehicle ${args.vehicle_id}.`,
    );
    if (vehicle.usage === args.usage)
      throw new ToolRejection(`Vehicle ${args.vehicle_id} is already registered for ${args.usage} use.`);
    let premium = Number(vehicle.premium_monthly);
    if (args.usage === 'business')
      premium = fromCents(Math.round((toCents(premium) * (100 + INSURANCE_RULES.businessUsePercent)) / 100));
    await ctx.db.query('UPDATE vehicles SET usage = $2 WHERE vehicle_id = $1', [args.vehicle_id, args.usage]);
    await ctx.db.query('UPDATE policies SET premium_monthly = $2 WHERE policy_id = $1', [vehicle.policy_id, premium]);
    await writeAudit(ctx, { entityType: 'vehicle', entityId: args.vehicle_id, action: `usage:${args.usage}` });
    return { vehicle_id: args.vehicle_id, usage: args.usage, policy_id: vehicle.policy_id, premium_monthly: premium };
  },
});

export const cancelPolicy = defineTool({
  name: 'cancel_policy',
  miniDescription: 'Cancel a policy.',
  description:
    'Cancel a policy with a reason (sold_vehicle, switched_insurer, customer_request). Check its claims first: the policy says when a cancellation must be refused.',
  input: { policy_id: policyId, reason: z.enum(CANCEL_REASONS).describe('Why the policy is cancelled.') },
  readOnly: false,
  async handler(ctx, args) {
    const policy = await requirePolicy(ctx, args.policy_id);
    if (policy.status === 'cancelled') throw new ToolRejection(`Policy ${args.policy_id} is already cancelled.`);
    await ctx.db.query(
      "UPDATE policies SET status = 'cancelled', cancel_reason = $2, cancelled_at = $3 WHERE policy_id = $1",
      [args.policy_id, args.reason, ctx.now],
    );
    await writeAudit(ctx, { entityType: 'policy', entityId: args.policy_id, action: 'cancel' });
    return { policy_id: args.policy_id, status: 'cancelled', reason: args.reason };
  },
});

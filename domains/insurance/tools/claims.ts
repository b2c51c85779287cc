import {
  addDays,
  defineTool,
  isoDate,
  selectJson,
  selectOne,
  toCents,
  ToolRejection,
  writeAudit,
  z,
  type ToolContext,
} from 'finalstate/domain';
import { CLAIM_KINDS, DENIAL_REASONS, NOTE_KINDS } from '../schema.js';
import { DESK_ADJUSTER } from '../seed.js';
import { INSURANCE_RULES } from '../policy.js';
import { requirePolicy } from './policies.js';
import { daysSinceDate } from './durations.js';

const claimId = z.string().describe('The claim id, e.g. CLM-104233.');

async function requireClaim(ctx: ToolContext, id: string) {
  return selectOne(
    ctx.db,
    'SELECT * FROM claims WHERE claim_id = $1',
    [id],
    `No claim ${id}. Check the id with the policyholder.`,
  );
}

async function note(ctx: ToolContext, claim: string, kind: (typeof NOTE_KINDS)[number], body: string): Promise<string> {
  const noteId = await ctx.nextId('note');
  await ctx.db.query(
    'INSERT INTO claim_notes (note_id, claim_id, kind, body, created_at) VALUES ($1, $2, $3, $4, $5)',
    [noteId, claim, kind, body, ctx.now],
  );
  return noteId;
}

interface ClaimView {
  claim_id: string;
  kind: string;
  status: string;
  estimate_amount: number | null;
  coverage: { deductible: number } | null;
  driver: { status: string } | null;
}

/** The mini profile's claim: what deciding it needs. */
function miniClaim(result: unknown): unknown {
  const c = result as ClaimView;
  return {
    claim_id: c.claim_id,
    kind: c.kind,
    status: c.status,
    estimate: c.estimate_amount,
    deductible: c.coverage?.deductible ?? null,
    driver_status: c.driver?.status ?? null,
  };
}

export const getClaim = defineTool({
  name: 'get_claim',
  miniDescription: 'Get a claim.',
  description:
    'Get a claim: kind, status, incident_date and days_since_incident, estimate_amount, approved_amount, the policy and vehicle, the coverage the claim falls under (limit_amount, deductible), the driver at the wheel (status listed or excluded), the repair shop (network or not), notes and payments made.',
  input: { claim_id: claimId },
  readOnly: true,
  miniResult: miniClaim,
  async handler(ctx, args) {
    const claim = await requireClaim(ctx, args.claim_id);
    const neededKind = INSURANCE_RULES.coverageFor[String(claim.kind)];
    const [coverage] = await selectJson(
      ctx.db,
      'SELECT kind, limit_amount, deductible FROM coverages WHERE vehicle_id = $1 AND kind = $2',
      [claim.vehicle_id, neededKind],
    );
    const [driver] = claim.driver_id
      ? await selectJson(ctx.db, 'SELECT driver_id, full_name, relation, status FROM drivers WHERE driver_id = $1', [
          claim.driver_id,
        ])
      : [];
    const [shop] = claim.shop_id
      ? await selectJson(ctx.db, 'SELECT shop_id, name, city, network FROM repair_shops WHERE shop_id = $1', [
          claim.shop_id,
        ])
      : [];
    const notes = await selectJson(
      ctx.db,
      'SELECT note_id, kind, body FROM claim_notes WHERE claim_id = $1 ORDER BY created_at, note_id',
      [args.claim_id],
    );
    const payments = await selectJson(
      ctx.db,
      'SELECT payment_id, payee, amount FROM payments WHERE claim_id = $1 ORDER BY payment_id',
      [args.claim_id],
    );
    return {
      claim_id: claim.claim_id,
      policy_id: claim.policy_id,
      vehicle_id: claim.vehicle_id,
      kind: claim.kind,
      status: claim.status,
      incident_date: claim.incident_date,
      days_since_incident: daysSinceDate(String(claim.incident_date), ctx.now),
      estimate_amount: claim.estimate_amount,
      approved_amount: claim.approved_amount,
      denial_reason: claim.denial_reason,
      coverage: coverage ?? null,
      driver: driver ?? null,
      repair_shop: shop ?? null,
      notes,
      payments,
    };
  },
});

export const listRepairShops = defineTool({
  name: 'list_repair_shops',
  description:
    'List the repair shops of a city (shop_id, name, network). Network shops (network: true) are paid directly by Harborline.',
  input: { city: z.string().describe('The city, e.g. Denver.') },
  readOnly: true,
  async handler(ctx, args) {
    const shops = await selectJson(
      ctx.db,
      'SELECT shop_id, name, city, network FROM repair_shops WHERE lower(city) = lower(trim($1)) ORDER BY shop_id',
      [args.city],
    );
    if (shops.length === 0) throw new ToolRejection(`No repair shops in ${args.city}.`);
    return { shops };
  },
});

export const fileClaim = defineTool({
  name: 'file_claim',
  miniDescription: 'File a claim.',
  description:
    'File a new claim (status open) for a vehicle of an active policy. incident_days_ago is how many days ago the incident happened, as the customer says (the incident date is computed from it). Returns the new claim_id.',
  input: {
    policy_id: z.string().describe('The policy id.'),
    vehicle_id: z.string().describe('The vehicle involved, e.g. VEH-104233.'),
    kind: z.enum(CLAIM_KINDS).describe('collision, comprehensive (weather, vandalism, animals), glass, or theft.'),
    incident_days_ago: z.number().int().min(0).describe('Days since the incident.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const policy = await requirePolicy(ctx, args.policy_id);
    if (policy.status !== 'active')
      throw new ToolRejection(
        `Policy ${args.policy_id} is ${String(policy.status)}; claims can only be filed on active policies.`,
      );
    await selectOne(
      ctx.db,
      'SELECT 1 AS found FROM vehicles WHERE vehicle_id = $1 AND policy_id = $2',
      [args.vehicle_id, args.policy_id],
      `Vehicle ${args.vehicle_id} is not on policy ${args.policy_id}.`,
    );
    const id = await ctx.nextId('claim');
    const incident = isoDate(addDays(ctx.now, -args.incident_days_ago));
    await ctx.db.query(
      "INSERT INTO claims (claim_id, policy_id, vehicle_id, kind, incident_date, reported_at, status) VALUES ($1, $2, $3, $4, $5, $6, 'open')",
      [id, args.policy_id, args.vehicle_id, args.kind, incident, ctx.now],
    );
    await writeAudit(ctx, { entityType: 'claim', entityId: id, action: 'file' });
    return { claim_id: id, status: 'open', incident_date: incident };
  },
});

export const assignRepairShop = defineTool({
  name: 'assign_repair_shop',
  description: 'Assign the repair shop that will repair the vehicle of a claim that is not yet decided or paid.',
  input: { claim_id: claimId, shop_id: z.string().describe('The shop id from list_repair_shops, e.g. SHOP-31.') },
  readOnly: false,
  async handler(ctx, args) {
    const claim = await requireClaim(ctx, args.claim_id);
    if (!['open', 'under_review'].includes(String(claim.status)))
      throw new ToolRejection(
        `Claim ${args.claim_id} is ${String(claim.status)}; its repair shop can no longer change.`,
      );
    const shop = await selectOne(
      ctx.db,
      'SELECT shop_id, name FROM repair_shops WHERE shop_id = $1',
      [args.shop_id],
      `No repair shop ${args.shop_id}. Use list_repair_shops.`,
    );
    if (claim.shop_id === args.shop_id)
      throw new ToolRejection(`Claim ${args.claim_id} is already assigned to ${args.shop_id}.`);
    await ctx.db.query('UPDATE claims SET shop_id = $2 WHERE claim_id = $1', [args.claim_id, args.shop_id]);
    await note(ctx, args.claim_id, 'shop', `Repair shop ${String(shop.name)} assigned.`);
    await writeAudit(ctx, { entityType: 'claim', entityId: args.claim_id, action: `assign_shop:${args.shop_id}` });
    return { claim_id: args.claim_id, shop_id: args.shop_id };
  },
});

export const approveClaim = defineTool({
  name: 'approve_claim',
  miniDescription: 'Approve a claim for an amount.',
  description: `Approve a claim under review for a payable amount (dollars), as adjuster ${DESK_ADJUSTER.adjuster_id}. The amount cannot exceed the estimate or the coverage limit. The policy says when you may approve and for how much.`,
  input: { claim_id: claimId, amount: z.number().positive().describe('The approved amount in dollars, to the cent.') },
  readOnly: false,
  async handler(ctx, args) {
    const claim = await requireClaim(ctx, args.claim_id);
    if (claim.status !== 'under_review')
      throw new ToolRejection(
        `Claim ${args.claim_id} is ${String(claim.status)}; only claims under review can be approved.`,
      );
    const cents = toCents(args.amount);
    if (claim.estimate_amount === null || cents > toCents(Number(claim.estimate_amount)))
      throw new ToolRejection(`The amount exceeds the estimate of claim ${args.claim_id}.`);
    const [coverage] = await selectJson(
      ctx.db,
      'SELECT limit_amount FROM coverages WHERE vehicle_id = $1 AND kind = $2',
      [claim.vehicle_id, INSURANCE_RULES.coverageFor[String(claim.kind)]],
    );
    if (!coverage)
      throw new ToolRejection(`Vehicle ${String(claim.vehicle_id)} has no coverage for a ${String(claim.kind)} claim.`);
    if (cents > toCents(Number(coverage.limit_amount)))
      throw new ToolRejection(`The amount exceeds the coverage limit of ${String(coverage.limit_amount)}.`);
    await ctx.db.query(
      "UPDATE claims SET status = 'approved', approved_amount = $2, adjuster_id = $3 WHERE claim_id = $1",
      [args.claim_id, cents / 100, DESK_ADJUSTER.adjuster_id],
    );
    await note(ctx, args.claim_id, 'approval', `Approved for ${args.amount}.`);
    await writeAudit(ctx, { entityType: 'claim', entityId: args.claim_id, action: 'approve' });
    return { claim_id: args.claim_id, status: 'approved', approved_amount: cents / 100 };
  },
});

export const denyClaim = defineTool({
  name: 'deny_claim',
  miniDescription: 'Deny a claim with a reason.',
  description:
    'Deny an open or under-review claim with a reason: excluded_driver, no_coverage, late_report or policy_inactive.',
  input: { claim_id: claimId, reason: z.enum(DENIAL_REASONS).describe('Why the claim is denied.') },
  readOnly: false,
  async handler(ctx, args) {
    const claim = await requireClaim(ctx, args.claim_id);
    if (!['open', 'under_review'].includes(String(claim.status)))
      throw new ToolRejection(`Claim ${args.claim_id} is ${String(claim.status)}; it has already been decided.`);
    await ctx.db.query(
      "UPDATE claims SET status = 'denied', denial_reason = $2, adjuster_id = $3 WHERE claim_id = $1",
      [args.claim_id, args.reason, DESK_ADJUSTER.adjuster_id],
    );
    await note(ctx, args.claim_id, 'denial', `Denied: ${args.reason}.`);
    await writeAudit(ctx, { entityType: 'claim', entityId: args.claim_id, action: 'deny' });
    return { claim_id: args.claim_id, status: 'denied', reason: args.reason };
  },
});

export const issueClaimPayment = defineTool({
  name: 'issue_claim_payment',
  description:
    'Pay (part of) the approved amount of a claim, to the repair shop assigned to the claim or to the policyholder. When the payments reach the approved amount the claim becomes paid.',
  input: {
    claim_id: claimId,
    amount: z.number().positive().describe('Dollars, to the cent.'),
    payee: z.enum(['repair_shop', 'policyholder']).describe('Who receives the money.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    const claim = await requireClaim(ctx, args.claim_id);
    if (claim.status !== 'approved')
      throw new ToolRejection(`Claim ${args.claim_id} is ${String(claim.status)}; only approved claims can be paid.`);
    if (args.payee === 'repair_shop' && !claim.shop_id)
      throw new ToolRejection(`Claim ${args.claim_id} has no repair shop; pay the policyholder.`);
    const [paid] = await selectJson(
      ctx.db,
      'SELECT coalesce(sum(amount), 0) AS total FROM payments WHERE claim_id = $1',
      [args.claim_id],
    );
    const remaining = toCents(Number(claim.approved_amount)) - toCents(Number(paid!.total));
    const cents = toCents(args.amount);
    if (cents > remaining)
      throw new ToolRejection(`Only ${remaining / 100} of claim ${args.claim_id} remains to be paid.`);
    const paymentId = await ctx.nextId('payment');
    await ctx.db.query(
      'INSERT INTO payments (payment_id, claim_id, payee, shop_id, amount, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [paymentId, args.claim_id, args.payee, args.payee === 'repair_shop' ? claim.shop_id : null, cents / 100, ctx.now],
    );
    if (cents === remaining)
      await ctx.db.query("UPDATE claims SET status = 'paid' WHERE claim_id = $1", [args.claim_id]);
    await note(ctx, args.claim_id, 'payment', `Paid ${cents / 100} to the ${args.payee}.`);
    await writeAudit(ctx, { entityType: 'claim', entityId: args.claim_id, action: `pay:${args.payee}` });
    return { payment_id: paymentId, claim_id: args.claim_id, status: cents === remaining ? 'paid' : 'approved' };
  },
});

export const addClaimNote = defineTool({
  name: 'add_claim_note',
  description:
    'Add an internal note to a claim (never shown to the customer), e.g. what the customer reported. Returns the note id.',
  input: {
    claim_id: claimId,
    kind: z.enum(NOTE_KINDS).describe('What the note is about.'),
    body: z.string().min(1).describe('The note.'),
  },
  readOnly: false,
  async handler(ctx, args) {
    await requireClaim(ctx, args.claim_id);
    return { note_id: await note(ctx, args.claim_id, args.kind, args.body) };
  },
});

import { defineTool, selectOne, ToolRejection, writeAudit, z } from 'finalstate/domain';
import { INCIDENT_KINDS, SEVERITIES } from '../schema.js';
import { employeeId, requireEmployee } from './employees.js';

const incidentId = z.string().describe('The incident id, e.g. INC-7000.');

export const logIncident = defineTool({
  name: 'log_incident',
  miniDescription: 'Log an incident.',
  description:
    'Log an incident (status open) for an employee: its kind, severity and, for a device, the device_id. Returns the new incident_id.',
  input: {
    employee_id: employeeId,
    kind: z.enum(INCIDENT_KINDS).describe('phishing, lost_device, leaked_credential, malware or hardware_fault.'),
    severity: z.enum(SEVERITIES).describe('The severity the policy prescribes.'),
    device_id: z.string().optional().describe('The device concerned, if any.'),
    summary: z.string().optional().describe('What the employee reported (free text).'),
  },
  readOnly: false,
  async handler(ctx, args) {
    await requireEmployee(ctx, args.employee_id);
    if (args.device_id !== undefined)
      await selectOne(
        ctx.db,
        'SELECT 1 AS found FROM devices WHERE device_id = $1 AND employee_id = $2',
        [args.device_id, args.employee_id],
        `Device ${args.device_id} is not held by ${args.employee_id}.`,
      );
    const id = await ctx.nextId('incident');
    await ctx.db.query(
      "INSERT INTO incidents (incident_id, employee_id, device_id, kind, severity, status, summary, created_at) VALUES ($1, $2, $3, $4, $5, 'open', $6, $7)",
      [id, args.employee_id, args.device_id ?? null, args.kind, args.severity, args.summary ?? '', ctx.now],
    );
    await writeAudit(ctx, { entityType: 'incident', entityId: id, action: `log:${args.kind}` });
    return { incident_id: id, status: 'open' };
  },
});

export const getIncident = defineTool({
  name: 'get_incident',
  description: 'Get an incident: employee, device, kind, severity, status (open or resolved) and summary.',
  input: { incident_id: incidentId },
  readOnly: true,
  async handler(ctx, args) {
    return selectOne(
      ctx.db,
      'SELECT incident_id, employee_id, device_id, kind, severity, status, summary FROM incidents WHERE incident_id = $1',
      [args.incident_id],
      `No incident ${args.incident_id}.`,
    );
  },
});

export const resolveIncident = defineTool({
  name: 'resolve_incident',
  description: 'Resolve (close) an open incident. The policy says which incidents the service desk may close.',
  input: { incident_id: incidentId },
  readOnly: false,
  async handler(ctx, args) {
    const i = await selectOne(
      ctx.db,
      'SELECT status FROM incidents WHERE incident_id = $1',
      [args.incident_id],
      `No incident ${args.incident_id}.`,
    );
    if (i.status !== 'open') throw new ToolRejection(`Incident ${args.incident_id} is already resolved.`);
    await ctx.db.query("UPDATE incidents SET status = 'resolved' WHERE incident_id = $1", [args.incident_id]);
    await writeAudit(ctx, { entityType: 'incident', entityId: args.incident_id, action: 'resolve' });
    return { incident_id: args.incident_id, status: 'resolved' };
  },
});

import { defineTool, selectOne, ToolRejection, writeAudit, z, type ToolContext } from 'finalstate/domain';

const deviceId = z.string().describe('The device id, e.g. DEV-104233-1.');

async function requireDevice(ctx: ToolContext, id: string) {
  return selectOne(
    ctx.db,
    'SELECT * FROM devices WHERE device_id = $1',
    [id],
    `No device ${id}. Use get_employee to list the employee's devices.`,
  );
}

export const getDevice = defineTool({
  name: 'get_device',
  miniDescription: 'Get a device.',
  description:
    'Get a device: its holder (employee_id), kind, model, asset_tag, whether its disk is encrypted, status (active, lost, returned, retired), and whether it is wiped and locked.',
  input: { device_id: deviceId },
  readOnly: true,
  miniResult: (result) => {
    const d = result as Record<string, unknown>;
    return { device_id: d.device_id, employee_id: d.employee_id, status: d.status, encrypted: d.encrypted };
  },
  async handler(ctx, args) {
    const d = await requireDevice(ctx, args.device_id);
    return {
      device_id: d.device_id,
      employee_id: d.employee_id,
      kind: d.kind,
      model: d.model,
      asset_tag: d.asset_tag,
      encrypted: d.encrypted,
      status: d.status,
      wiped: d.wiped,
      locked: d.locked,
    };
  },
});

export const reportDeviceLost = defineTool({
  name: 'report_device_lost',
  miniDescription: 'Report a device lost (locks it).',
  description: 'Report an active device lost or stolen: sets its status to lost and locks it remotely.',
  input: { device_id: deviceId },
  readOnly: false,
  async handler(ctx, args) {
    const d = await requireDevice(ctx, args.device_id);
    if (d.status !== 'active')
      throw new ToolRejection(
        `Device ${args.device_id} is ${String(d.status)}; only active devices can be reported lost.`,
      );
    await ctx.db.query("UPDATE devices SET status = 'lost', locked = true WHERE device_id = $1", [args.device_id]);
    await writeAudit(ctx, { entityType: 'device', entityId: args.device_id, action: 'lost' });
    return { device_id: args.device_id, status: 'lost', locked: true };
  },
});

export const wipeDevice = defineTool({
  name: 'wipe_device',
  description: 'Erase a device remotely (or at the desk, for a returned one). A device is wiped once.',
  input: { device_id: deviceId },
  readOnly: false,
  async handler(ctx, args) {
    const d = await requireDevice(ctx, args.device_id);
    if (d.wiped) throw new ToolRejection(`Device ${args.device_id} is already wiped.`);
    if (d.status === 'retired') throw new ToolRejection(`Device ${args.device_id} is retired.`);
    await ctx.db.query('UPDATE devices SET wiped = true WHERE device_id = $1', [args.device_id]);
    await writeAudit(ctx, { entityType: 'device', entityId: args.device_id, action: 'wipe' });
    return { device_id: args.device_id, wiped: true };
  },
});

export const retireDevice = defineTool({
  name: 'retire_device',
  description: 'Retire a returned device for disposal. The device must be wiped first.',
  input: { device_id: deviceId },
  readOnly: false,
  async handler(ctx, args) {
    const d = await requireDevice(ctx, args.device_id);
    if (d.status !== 'returned')
      throw new ToolRejection(`Device ${args.device_id} is ${String(d.status)}; only returned devices can be retired.`);
    if (!d.wiped) throw new ToolRejection(`Device ${args.device_id} is not wiped; wipe it before retiring it.`);
    await ctx.db.query("UPDATE devices SET status = 'retired' WHERE device_id = $1", [args.device_id]);
    await writeAudit(ctx, { entityType: 'device', entityId: args.device_id, action: 'retire' });
    return { device_id: args.device_id, status: 'retired' };
  },
});

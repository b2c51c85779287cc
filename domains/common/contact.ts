import { z } from 'zod';
import { ToolRejection, type ToolDefinition } from '../../environment/domain.js';
import { writeAudit } from './audit.js';
import { selectJson, selectOne } from './sql.js';
import { defineTool } from './tool.js';

/** Which table holds the party's contact details, and how the tool names it. */
export interface ContactTable {
  toolName: string;
  table: string;
  key: string;
  label: string;
  /** The read-only tool that must have verified the identity first. */
  verifyTool: string;
}

/** Change the e-mail and/or phone of a customer or traveller; e-mails stay unique. Audited. */
export function contactUpdateTool(cfg: ContactTable): ToolDefinition {
  const { table, key, label } = cfg;
  return defineTool({
    name: cfg.toolName,
    description: `Change a ${label}'s e-mail and/or phone number. Only after ${cfg.verifyTool} returned verified: true in this conversation.`,
    input: {
      [key]: z.string().describe(`The ${label} id.`),
      email: z.string().email().optional().describe('The new e-mail address.'),
      phone: z.string().min(5).optional().describe('The new phone number, as given.'),
    },
    readOnly: false,
    async handler(ctx, args) {
      const id = String(args[key]);
      if (args.email === undefined && args.phone === undefined) throw new ToolRejection('Give a new email or phone.');
      await selectOne(ctx.db, `SELECT ${key} FROM ${table} WHERE ${key} = $1`, [id], `No ${label} ${id}.`);
      if (args.email !== undefined) {
        const taken = await selectJson(
          ctx.db,
          `SELECT ${key} FROM ${table} WHERE lower(email) = lower(trim($1)) AND ${key} <> $2`,
          [args.email, id],
        );
        if (taken.length > 0)
          throw new ToolRejection(`The e-mail ${args.email} belongs to another account; it cannot be reused.`);
      }
      await ctx.db.query(
        `UPDATE ${table} SET email = COALESCE(trim($2), email), phone = COALESCE(trim($3), phone) WHERE ${key} = $1`,
        [id, args.email ?? null, args.phone ?? null],
      );
      const changed = [args.email !== undefined ? 'email' : null, args.phone !== undefined ? 'phone' : null]
        .filter(Boolean)
        .join('+');
      await writeAudit(ctx, { entityType: label, entityId: id, action: `contact_update:${changed}` });
      return selectOne(ctx.db, `SELECT ${key}, email, phone FROM ${table} WHERE ${key} = $1`, [id], 'vanished');
    },
  });
}

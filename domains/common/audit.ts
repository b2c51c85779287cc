import type { TableGrading } from '../../schemas/domain.js';
import type { ToolContext } from '../../environment/domain.js';

/** SQL of the audit table both domains keep: every business write leaves one row, stamped with the episode clock. */
export const auditTableSql = `
CREATE TABLE audit_log (
  audit_id     text PRIMARY KEY,
  entity_type  text NOT NULL,
  entity_id    text NOT NULL,
  action       text NOT NULL,
  actor        text NOT NULL,
  detail       text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL
);
`;

export interface AuditEntry {
  entityType: string;
  entityId: string;
  action: string;
  detail?: string;
}

/**
 * The audit id names what happened (`order:ORD-1:cancel#1`), numbered per entity and action rather than by a global
 * sequence, so two correct solutions that perform the same writes in a different order leave the same audit rows,
 * while a repeated action still leaves a second, visible row.
 */
export async function writeAudit(ctx: ToolContext, entry: AuditEntry): Promise<void> {
  const previous = await ctx.db.query(
    'SELECT count(*)::int AS n FROM audit_log WHERE entity_type = $1 AND entity_id = $2 AND action = $3',
    [entry.entityType, entry.entityId, entry.action],
  );
  const auditId = `${entry.entityType}:${entry.entityId}:${entry.action}#${Number(previous.rows[0].n) + 1}`;
  await ctx.db.query(
    'INSERT INTO audit_log (audit_id, entity_type, entity_id, action, actor, detail, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [auditId, entry.entityType, entry.entityId, entry.action, 'support_agent', entry.detail ?? '', ctx.now],
  );
}

/** Audit rows are graded by what happened, not by their free-text detail. */
export const auditGrading: TableGrading = {
  primaryKey: ['audit_id'],
  ignoreColumns: ['detail'],
  canonicalize: {},
};

import type { Canonicalization, TableGrading } from '../schemas/domain.js';

function applyRule(value: unknown, rule: Canonicalization): unknown {
  if (value === null || value === undefined) return value;
  if (rule === 'trim') return typeof value === 'string' ? value.trim() : value;
  if (rule === 'casefold') return typeof value === 'string' ? value.toLowerCase() : value;
  if (rule === 'collapse_whitespace') return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : value;
  if ('enum' in rule) return typeof value === 'string' && Object.hasOwn(rule.enum, value) ? rule.enum[value] : value;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? Number(n.toFixed(rule.round)) : value;
}

/** A row as grading sees it: ignored columns removed, the table's canonicalisation rules applied in order. */
export function canonicalRow(row: Record<string, unknown>, policy: TableGrading): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (policy.ignoreColumns.includes(column)) continue;
    out[column] = (policy.canonicalize[column] ?? []).reduce<unknown>(applyRule, value);
  }
  return out;
}

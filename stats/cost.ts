import fs from 'node:fs';
import { UserError } from '../core/errors.js';
import { accurateSum } from './sum.js';
import { PriceTable, roles, type ModelPrice, type ResultRow, type Role, type TokenUsage } from '../schemas/results.js';

export type CostByRole = Record<Role, number>;

/** US dollars for one model's tokens: uncached input, cached input and output, each at its price per million. */
export function usageCost(usage: TokenUsage, price: ModelPrice): number {
  const uncached = usage.inputTokens - usage.cachedInputTokens;
  return (
    (uncached * price.input + usage.cachedInputTokens * price.cachedInput + usage.outputTokens * price.output) / 1e6
  );
}

/** One episode's cost per role, priced with the table's model for that role. */
export function rowCostByRole(row: ResultRow, prices: PriceTable): CostByRole {
  const out = {} as CostByRole;
  for (const role of roles) out[role] = usageCost(row.usage[role], prices.models[prices.roles[role]]!);
  return out;
}

export interface CostSummary {
  /** Every row's cost, errored episodes included: they were paid for. */
  total: number;
  /** total ÷ successes; null when nothing succeeded. */
  perSuccess: number | null;
  /** total ÷ tasks passed k/k; null when no task did. */
  perDependableTask: number | null;
  /** Per role, only when a price table was given (the rows' costUsd carries no role split). */
  byRole: CostByRole | null;
  source: 'rows' | 'prices';
}

/** Cost of a set of rows: from the price table when given, else the sum of the rows' own costUsd. */
export function summarizeCost(
  rows: readonly ResultRow[],
  successes: number,
  dependableTasks: number,
  prices?: PriceTable,
): CostSummary {
  let total: number;
  let byRole: CostByRole | null = null;
  if (prices) {
    const costs = rows.map((row) => rowCostByRole(row, prices));
    byRole = { agent: 0, user: 0, judge: 0 };
    for (const role of roles) byRole[role] = accurateSum(costs.map((c) => c[role]));
    total = accurateSum(roles.map((role) => byRole![role]));
  } else {
    total = accurateSum(rows.map((row) => row.costUsd));
  }
  return {
    total,
    perSuccess: successes > 0 ? total / successes : null,
    perDependableTask: dependableTasks > 0 ? total / dependableTasks : null,
    byRole,
    source: prices ? 'prices' : 'rows',
  };
}

export function readPriceTable(file: string): PriceTable {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`cannot read price table ${file}: ${(err as Error).message}`);
  }
  const parsed = PriceTable.safeParse(value);
  if (!parsed.success) {
    throw new UserError(
      `${file}: not a price table: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(table)'}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

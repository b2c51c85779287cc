import type { ModelPrices, TokenUsage } from '../../schemas/runtime.js';
import { usageCost } from '../../stats/cost.js';

export interface PricedUsage {
  model: string;
  usage: TokenUsage;
}

export interface EpisodeCost {
  totalUsd: number;
  byModel: Record<string, number>;
  /** Models that used tokens but have no price: counted as 0 and listed here, never silently. */
  unpriced: string[];
}

/** The cost of an episode from the usage of every model it called and a configurable price table. */
export function episodeCost(entries: readonly PricedUsage[], prices: ModelPrices): EpisodeCost {
  const cost: EpisodeCost = { totalUsd: 0, byModel: {}, unpriced: [] };
  for (const { model, usage } of entries) {
    const price = prices[model];
    const spent = usage.inputTokens + usage.outputTokens > 0;
    if (!price) {
      if (spent && !cost.unpriced.includes(model)) cost.unpriced.push(model);
      continue;
    }
    const usd = usageCost(usage, price);
    cost.byModel[model] = (cost.byModel[model] ?? 0) + usd;
    cost.totalUsd += usd;
  }
  return cost;
}

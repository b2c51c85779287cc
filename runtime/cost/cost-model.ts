import type { ModelPrices, TokenUsage } from '../../schemas/runtime.js';

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

/** Dollars for one model's usage: uncached input, cached input and output, each at its price per million tokens. */
export function usageCostUsd(usage: TokenUsage, price: { input: number; cachedInput: number; output: number }): number {
  const uncached = usage.inputTokens - usage.cachedInputTokens;
  return (
    (uncached * price.input + usage.cachedInputTokens * price.cachedInput + usage.outputTokens * price.output) /
    1_000_000
  );
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
    const usd = usageCostUsd(usage, price);
    cost.byModel[model] = (cost.byModel[model] ?? 0) + usd;
    cost.totalUsd += usd;
  }
  return cost;
}

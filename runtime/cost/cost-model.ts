import type { EpisodeRequest } from '../../schemas/episode.js';
import type { ModelPrices, TokenUsage } from '../../schemas/runtime.js';
import { usageCost } from '../../stats/cost.js';
import { adapterVersionOf } from '../../core/policy-versions.js';

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

/**
 * A LoRA campaign's adapters: the completion names the adapter `<prefix><n>`, which runs on the base model's servers
 * at the base model's price.
 */
export interface AdapterPricing {
  prefix: string;
  baseModel: string;
}

/** How an episode's policy is priced: a LoRA campaign's served policy names adapters of its client's base model. */
export function adapterPricingOf(policy: EpisodeRequest['policy']): AdapterPricing | undefined {
  return policy.kind === 'served' && policy.adapterPrefix !== undefined
    ? { prefix: policy.adapterPrefix, baseModel: policy.client.model }
    : undefined;
}

/** The price table's key for a model an episode called: an adapter of `adapters` is priced as its base model. */
export function priceKeyOf(model: string, adapters?: AdapterPricing): string {
  return adapters && adapterVersionOf(adapters.prefix, model) !== undefined ? adapters.baseModel : model;
}

/** Prices an episode's usage under its policy (a LoRA adapter is priced as its base model). */
export type EpisodePricing = (policy: EpisodeRequest['policy'], entries: readonly PricedUsage[]) => EpisodeCost;

/** The pricing of a worker's price table. */
export function pricedBy(prices: ModelPrices): EpisodePricing {
  return (policy, entries) => episodeCost(entries, prices, adapterPricingOf(policy));
}

/** The cost of an episode from the usage of every model it called and a configurable price table. */
export function episodeCost(
  entries: readonly PricedUsage[],
  prices: ModelPrices,
  adapters?: AdapterPricing,
): EpisodeCost {
  const cost: EpisodeCost = { totalUsd: 0, byModel: {}, unpriced: [] };
  for (const { model, usage } of entries) {
    const price = prices[priceKeyOf(model, adapters)];
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

import { inverseRegularizedIncompleteBeta, regularizedIncompleteBeta } from './incomplete-beta.js';

/** Jeffreys posterior of a success rate after c successes in n trials: Beta(c + 1/2, n − c + 1/2). */
export function jeffreysPosterior(c: number, n: number): { a: number; b: number } {
  // c may be fractional (an effective count, see metrics.ts); the Beta distribution does not mind.
  if (!Number.isFinite(c) || !Number.isFinite(n) || c < 0 || n < c)
    throw new RangeError(`Jeffreys posterior: need 0 <= c <= n, got c=${c}, n=${n}`);
  return { a: c + 0.5, b: n - c + 0.5 };
}

/** Posterior mean (c + 1/2) / (n + 1). */
export function jeffreysMean(c: number, n: number): number {
  const { a, b } = jeffreysPosterior(c, n);
  return a / (a + b);
}

/** Equal-tailed interval of the Jeffreys posterior at `level` (default 95%): its (1−level)/2 and (1+level)/2 quantiles. */
export function jeffreysInterval(c: number, n: number, level = 0.95): [number, number] {
  const { a, b } = jeffreysPosterior(c, n);
  const tail = (1 - level) / 2;
  return [inverseRegularizedIncompleteBeta(tail, a, b), inverseRegularizedIncompleteBeta(1 - tail, a, b)];
}

/** Posterior mass in each bin [edges[i], edges[i+1]), computed exactly with the incomplete beta function. */
export function binMasses(c: number, n: number, edges: readonly number[]): number[] {
  const { a, b } = jeffreysPosterior(c, n);
  const cdf = edges.map((e) => regularizedIncompleteBeta(e, a, b));
  return cdf.slice(1).map((hi, i) => Math.max(0, hi - cdf[i]!));
}

/** The bin with the most mass (the lower one on an exact tie). */
export function mostLikelyBin(masses: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < masses.length; i++) if (masses[i]! > masses[best]!) best = i;
  return best;
}

export interface DifficultyEstimate {
  masses: number[];
  bin: number;
  mean: number;
  interval: [number, number];
}

export function estimateDifficulty(c: number, n: number, edges: readonly number[]): DifficultyEstimate {
  const masses = binMasses(c, n, edges);
  return { masses, bin: mostLikelyBin(masses), mean: jeffreysMean(c, n), interval: jeffreysInterval(c, n) };
}

/**
 * E[p^k] under the Jeffreys posterior: B(c + 1/2 + k, n − c + 1/2) / B(c + 1/2, n − c + 1/2),
 * evaluated as the product of (c + 1/2 + j) / (n + 1 + j) for j < k, which is exact and cannot overflow.
 */
export function jeffreysExpectedPowerOfP(c: number, n: number, k: number): number {
  const { a } = jeffreysPosterior(c, n);
  let value = 1;
  for (let j = 0; j < k; j++) value *= (a + j) / (n + 1 + j);
  return value;
}

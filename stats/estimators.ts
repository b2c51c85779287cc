/*
 * Per-task estimators from c successes in n trials. Binomial ratios are evaluated as running products of
 * factors in [0,1], never as factorials, so they are exact to rounding for any n.
 */

function checkCounts(n: number, c: number, k: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`estimator: need integers 0 <= c <= n and 1 <= k <= n, got n=${n}, c=${c}, k=${k}`);
  }
}

/** C(m, k) / C(n, k) for m <= n: the chance that k draws without replacement from n all fall among m. */
function binomialRatio(m: number, n: number, k: number): number {
  if (m < k) return 0;
  let ratio = 1;
  for (let j = 0; j < k; j++) ratio *= (m - j) / (n - j);
  return ratio;
}

/** Unbiased pass@k: 1 − C(n − c, k) / C(n, k), the chance that at least one of k of the n attempts succeeded. */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  return 1 - binomialRatio(n - c, n, k);
}

/** Unbiased pass^k: C(c, k) / C(n, k), the chance that k attempts drawn from the n all succeeded. */
export function passHatKUnbiased(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  return binomialRatio(c, n, k);
}

/** Plug-in pass^k: (c / n)^k. */
export function passHatKPlugin(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  return (c / n) ** k;
}

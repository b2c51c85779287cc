/** Neumaier's compensated sum: thousands of small costs add up to the correctly rounded total, not 925.8000000001. */
export function accurateSum(values: Iterable<number>): number {
  let sum = 0;
  let compensation = 0;
  for (const v of values) {
    const t = sum + v;
    compensation += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
    sum = t;
  }
  return sum + compensation;
}

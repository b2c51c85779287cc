import { logBeta } from './log-gamma.js';

const TINY = 1e-300;
const EPSILON = 1e-15;
const MAX_ITERATIONS = 10_000;

function checkShape(a: number, b: number): void {
  if (!(a > 0) || !(b > 0) || !Number.isFinite(a) || !Number.isFinite(b)) {
    throw new RangeError(`incomplete beta: shape parameters must be positive and finite, got a=${a}, b=${b}`);
  }
}

/**
 * The continued fraction of I_x(a, b), evaluated with the modified Lentz method. It converges quickly for
 * x < (a + 1) / (a + b + 2); the caller uses the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) on the other side.
 */
function continuedFraction(x: number, a: number, b: number): number {
  const guard = (v: number) => (Math.abs(v) < TINY ? TINY : v);
  let c = 1;
  let d = 1 / guard(1 - ((a + b) * x) / (a + 1));
  let result = d;
  for (let m = 1; m <= MAX_ITERATIONS; m++) {
    const evenTerm = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 / guard(1 + evenTerm * d);
    c = guard(1 + evenTerm / c);
    result *= d * c;
    const oddTerm = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 / guard(1 + oddTerm * d);
    c = guard(1 + oddTerm / c);
    const delta = d * c;
    result *= delta;
    if (Math.abs(delta - 1) < EPSILON) return result;
  }
  throw new Error(`incomplete beta: continued fraction did not converge for x=${x}, a=${a}, b=${b}`);
}

/** The regularised incomplete beta function I_x(a, b): the CDF of Beta(a, b) at x. */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  checkShape(a, b);
  if (Number.isNaN(x)) throw new RangeError('incomplete beta: x is NaN');
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const logFront = a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b);
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(logFront) * continuedFraction(x, a, b)) / a;
  return 1 - (Math.exp(logFront) * continuedFraction(1 - x, b, a)) / b;
}

/** The Beta(a, b) density at x. */
export function betaDensity(x: number, a: number, b: number): number {
  checkShape(a, b);
  if (x <= 0 || x >= 1) return 0;
  return Math.exp((a - 1) * Math.log(x) + (b - 1) * Math.log1p(-x) - logBeta(a, b));
}

/**
 * The x with I_x(a, b) = p (the Beta(a, b) quantile): Newton steps kept inside a shrinking bisection bracket, so it
 * always converges, to about 1e-14.
 */
export function inverseRegularizedIncompleteBeta(p: number, a: number, b: number): number {
  checkShape(a, b);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`inverse incomplete beta: p must be in [0,1], got ${p}`);
  if (p === 0) return 0;
  if (p === 1) return 1;
  let lo = 0;
  let hi = 1;
  let x = a / (a + b);
  for (let i = 0; i < 200; i++) {
    const error = regularizedIncompleteBeta(x, a, b) - p;
    if (error === 0) return x;
    if (error < 0) lo = x;
    else hi = x;
    if (hi - lo < 1e-15) break;
    const density = betaDensity(x, a, b);
    let next = density > 0 ? x - error / density : Number.NaN;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - x) < 1e-16) return next;
    x = next;
  }
  return x;
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  betaDensity,
  inverseRegularizedIncompleteBeta,
  regularizedIncompleteBeta,
} from '../../stats/incomplete-beta.js';
import { logBeta, logGamma } from '../../stats/log-gamma.js';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: got ${actual}, expected ${expected} (±${tolerance})`);

/** I_x(a, b) for integer a, b is P(Binomial(a + b − 1, x) >= a): an exact finite sum, independent of the continued fraction. */
function binomialTail(x: number, a: number, b: number): number {
  const m = a + b - 1;
  let sum = 0;
  for (let j = a; j <= m; j++) {
    let choose = 1;
    for (let i = 1; i <= j; i++) choose = (choose * (m - j + i)) / i;
    sum += choose * x ** j * (1 - x) ** (m - j);
  }
  return sum;
}

test('log-gamma matches exact values', () => {
  close(logGamma(1), 0, 1e-14, 'lnΓ(1)');
  close(logGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-14, 'lnΓ(1/2)');
  close(logGamma(10), Math.log(362880), 1e-12, 'lnΓ(10) = ln 9!');
  close(
    logGamma(20.5),
    Math.log(Math.sqrt(Math.PI)) + Array.from({ length: 20 }, (_, i) => Math.log(i + 0.5)).reduce((s, v) => s + v, 0),
    1e-11,
    'lnΓ(20.5)',
  );
  close(logBeta(2, 3), Math.log(1 / 12), 1e-14, 'ln B(2,3)');
  assert.throws(() => logGamma(0), /positive/);
});

test('closed forms: I_x(a,1) = x^a, I_x(1,b) = 1 − (1−x)^b, arcsine and Beta(1/2, 3/2)', () => {
  for (const x of [0.001, 0.08, 0.3, 0.5, 0.77, 0.999]) {
    close(regularizedIncompleteBeta(x, 2.5, 1), x ** 2.5, 1e-14, `I_${x}(2.5,1)`);
    close(regularizedIncompleteBeta(x, 1, 7.5), 1 - (1 - x) ** 7.5, 1e-14, `I_${x}(1,7.5)`);
    close(regularizedIncompleteBeta(x, 0.5, 0.5), (2 / Math.PI) * Math.asin(Math.sqrt(x)), 1e-14, `I_${x}(1/2,1/2)`);
    close(
      regularizedIncompleteBeta(x, 0.5, 1.5),
      (2 / Math.PI) * (Math.asin(Math.sqrt(x)) + Math.sqrt(x * (1 - x))),
      1e-14,
      `I_${x}(1/2,3/2)`,
    );
  }
  // Known values, e.g. scipy.special.betainc(0.5, 0.5, 0.25) = 1/3 (arcsine: (2/π)·asin(1/2) = 1/3).
  close(regularizedIncompleteBeta(0.25, 0.5, 0.5), 1 / 3, 1e-15, 'I_0.25(1/2,1/2)');
  close(regularizedIncompleteBeta(0.5, 2, 3), 11 / 16, 1e-15, 'I_0.5(2,3) = 11/16');
  close(regularizedIncompleteBeta(0.4, 3, 3), 0.31744, 1e-15, 'I_0.4(3,3) = 0.31744');
});

test('integer parameters agree with the binomial tail sum', () => {
  for (const [x, a, b] of [
    [0.35, 3, 4],
    [0.4, 10, 15],
    [0.9, 18, 3],
    [0.05, 1, 30],
    [0.62, 40, 25],
  ] as const) {
    close(regularizedIncompleteBeta(x, a, b), binomialTail(x, a, b), 1e-13, `I_${x}(${a},${b})`);
  }
});

test('half-integer (Jeffreys) parameters agree with the recurrence from the arcsine law', () => {
  // I_x(a+1,b) = I_x(a,b) − x^a(1−x)^b / (a·B(a,b)) and I_x(a,b+1) = I_x(a,b) + x^a(1−x)^b / (b·B(a,b)).
  for (const x of [0.08, 0.4, 0.6, 0.9]) {
    let a = 0.5;
    let b = 0.5;
    let value = (2 / Math.PI) * Math.asin(Math.sqrt(x));
    const term = () => Math.exp(a * Math.log(x) + b * Math.log(1 - x) - logBeta(a, b));
    for (let c = 0; c < 7; c++) {
      value -= term() / a;
      a += 1;
    }
    for (let f = 0; f < 13; f++) {
      value += term() / b;
      b += 1;
    }
    close(regularizedIncompleteBeta(x, 7.5, 13.5), value, 1e-12, `I_${x}(7.5,13.5)`);
  }
});

test('symmetry, bounds and large parameters', () => {
  close(regularizedIncompleteBeta(0.5, 200.5, 200.5), 0.5, 1e-12, 'I_0.5(a,a)');
  for (const [x, a, b] of [
    [0.2, 3.5, 9.5],
    [0.7, 100.5, 40.5],
    [0.01, 0.5, 20.5],
  ] as const) {
    close(regularizedIncompleteBeta(x, a, b), 1 - regularizedIncompleteBeta(1 - x, b, a), 1e-13, `symmetry at ${x}`);
  }
  assert.equal(regularizedIncompleteBeta(0, 2, 3), 0);
  assert.equal(regularizedIncompleteBeta(1, 2, 3), 1);
  assert.throws(() => regularizedIncompleteBeta(0.5, 0, 1), /positive/);
});

test('the inverse returns the quantile', () => {
  for (const p of [0.025, 0.5, 0.975])
    close(
      inverseRegularizedIncompleteBeta(p, 0.5, 0.5),
      Math.sin((Math.PI * p) / 2) ** 2,
      1e-13,
      `arcsine quantile ${p}`,
    );
  for (const [p, a, b] of [
    [0.025, 5.5, 15.5],
    [0.975, 0.5, 20.5],
    [0.3, 200.5, 3.5],
    [1e-6, 2.5, 2.5],
  ] as const) {
    const x = inverseRegularizedIncompleteBeta(p, a, b);
    close(regularizedIncompleteBeta(x, a, b), p, 1e-12, `I(I⁻¹(${p}))`);
  }
  assert.ok(betaDensity(0.5, 2, 2) > 1.49 && betaDensity(0.5, 2, 2) < 1.51, 'Beta(2,2) density at 1/2 is 1.5');
});

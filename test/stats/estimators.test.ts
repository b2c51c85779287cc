import assert from 'node:assert/strict';
import { test } from 'node:test';
import { passAtK, passHatKPlugin, passHatKUnbiased } from '../../stats/estimators.js';
import { logGamma } from '../../stats/log-gamma.js';
import { accurateSum } from '../../stats/sum.js';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: got ${actual}, expected ${expected}`);
const logChoose = (n: number, k: number) => logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);

test('hand-computed pass@k and pass^k for 2 successes in 5', () => {
  close(passAtK(5, 2, 2), 1 - 3 / 10, 1e-15, 'pass@2 = 1 − C(3,2)/C(5,2)');
  close(passHatKUnbiased(5, 2, 2), 1 / 10, 1e-15, 'pass^2 = C(2,2)/C(5,2)');
  close(passHatKPlugin(5, 2, 2), 0.16, 1e-15, 'plug-in (2/5)^2');
  close(passAtK(5, 2, 1), 0.4, 1e-15, 'pass@1 = c/n');
  assert.equal(passAtK(5, 2, 4), 1, 'n − c < k: some success is certain');
  assert.equal(passHatKUnbiased(5, 2, 3), 0, 'c < k: all-success is impossible');
  assert.equal(passAtK(20, 0, 20), 0);
  assert.equal(passAtK(20, 1, 20), 1);
  assert.equal(passHatKUnbiased(20, 20, 20), 1);
});

test('large n stays accurate (no factorial overflow)', () => {
  const expected = 1 - Math.exp(logChoose(990, 100) - logChoose(1000, 100));
  close(passAtK(1000, 10, 100), expected, 1e-12, 'pass@100 with 10/1000');
  close(
    passHatKUnbiased(5000, 4000, 300),
    Math.exp(logChoose(4000, 300) - logChoose(5000, 300)),
    1e-20,
    'pass^300 with 4000/5000',
  );
});

test('k outside 1..n is rejected', () => {
  assert.throws(() => passAtK(3, 1, 4), /k <= n/);
  assert.throws(() => passHatKPlugin(3, 1, 0), /1 <= k/);
});

test('compensated summation of many small costs', () => {
  const cents = Array.from({ length: 10_140 }, (_, i) => (i < 1320 ? 0.1 : 0.09));
  assert.equal(accurateSum(cents), 925.8);
  assert.notEqual(
    cents.reduce((s, v) => s + v, 0),
    925.8,
    'naive summation drifts',
  );
  assert.equal(accurateSum([1e16, 1, -1e16]), 1);
});

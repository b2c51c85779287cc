import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_EDGES, DEFAULT_KEEP, defaultKeep, parseEdges, parseKeep } from '../../stats/bins.js';
import {
  binMasses,
  estimateDifficulty,
  jeffreysExpectedPowerOfP,
  jeffreysInterval,
  jeffreysMean,
  mostLikelyBin,
} from '../../stats/jeffreys.js';
import { logBeta } from '../../stats/log-gamma.js';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: got ${actual}, expected ${expected}`);
const arcsineCdf = (x: number) => (2 / Math.PI) * Math.asin(Math.sqrt(x));
const beta_half_threeHalves = (x: number) => (2 / Math.PI) * (Math.asin(Math.sqrt(x)) + Math.sqrt(x * (1 - x)));

test('bin masses of Beta(1/2,1/2) (no probe yet) and Beta(1/2,3/2) (one failure) are exact', () => {
  const prior = binMasses(0, 0, DEFAULT_EDGES);
  const expected = DEFAULT_EDGES.slice(1).map((hi, i) => arcsineCdf(hi) - arcsineCdf(DEFAULT_EDGES[i]!));
  prior.forEach((m, i) => close(m, expected[i]!, 1e-14, `prior mass of bin ${i}`));
  close(
    prior.reduce((s, m) => s + m, 0),
    1,
    1e-14,
    'masses sum to 1',
  );
  assert.equal(mostLikelyBin(prior), 1, 'the prior puts most mass on the wide [.08,.4) (0.2534)');
  close(prior[0]!, 0.182555, 1e-6, 'prior mass of [0,.08)');

  const oneFailure = binMasses(0, 1, DEFAULT_EDGES);
  close(oneFailure[0]!, beta_half_threeHalves(0.08), 1e-14, 'one failure: mass on [0,.08)');
  close(oneFailure[4]!, 1 - beta_half_threeHalves(0.9), 1e-14, 'one failure: mass on [.9,1]');
});

test('assignment, mean and interval of a probed task', () => {
  const e = estimateDifficulty(10, 20, DEFAULT_EDGES);
  assert.equal(e.bin, 2, '10/20 lands in [.4,.6)');
  close(e.mean, 10.5 / 21, 1e-15, 'mean (c+1/2)/(n+1)');
  close(e.interval[0], 1 - e.interval[1], 1e-12, 'symmetric posterior, symmetric interval');
  assert.ok(e.interval[0] > 0.28 && e.interval[0] < 0.3, `lower bound ${e.interval[0]} near 0.29`);
  assert.equal(estimateDifficulty(0, 20, DEFAULT_EDGES).bin, 0);
  assert.equal(estimateDifficulty(20, 20, DEFAULT_EDGES).bin, 4);
  assert.equal(estimateDifficulty(3, 20, DEFAULT_EDGES).bin, 1);
  assert.equal(estimateDifficulty(15, 20, DEFAULT_EDGES).bin, 3);
  close(jeffreysMean(0, 0), 0.5, 0, 'prior mean');
  const [lo, hi] = jeffreysInterval(0, 0);
  close(lo, Math.sin((Math.PI * 0.025) / 2) ** 2, 1e-13, 'prior 2.5% quantile');
  close(hi, Math.sin((Math.PI * 0.975) / 2) ** 2, 1e-13, 'prior 97.5% quantile');
});

test('E[p^k] under the Jeffreys posterior is the Beta-function ratio', () => {
  close(jeffreysExpectedPowerOfP(3, 5, 2), (3.5 / 6) * (4.5 / 7), 1e-15, 'hand-computed E[p^2] for 3/5');
  close(jeffreysExpectedPowerOfP(3, 5, 2), 0.375, 1e-15, '= 0.375');
  for (const [c, n, k] of [
    [7, 20, 20],
    [20, 20, 20],
    [0, 20, 5],
    [123, 400, 37],
  ] as const) {
    const viaBeta = Math.exp(logBeta(c + 0.5 + k, n - c + 0.5) - logBeta(c + 0.5, n - c + 0.5));
    close(jeffreysExpectedPowerOfP(c, n, k) / viaBeta, 1, 1e-11, `E[p^${k}] for ${c}/${n}`);
  }
});

test('bin edges and kept bins are parsed and checked', () => {
  assert.deepEqual(parseEdges('0, .1, 1', '--bins'), [0, 0.1, 1]);
  assert.throws(() => parseEdges('0,0.5,0.4,1', '--bins'), /--bins: .*increasing/);
  assert.throws(() => parseEdges('0.1,1', '--bins'), /start at 0/);
  assert.throws(() => parseEdges('0,x,1', '--bins'), /--bins/);
  assert.deepEqual(parseKeep('3,1', DEFAULT_EDGES, '--keep'), [1, 3]);
  assert.deepEqual(defaultKeep(DEFAULT_EDGES), [...DEFAULT_KEEP]);
  assert.deepEqual(defaultKeep([0, 0.3, 0.7, 1]), [1]);
  assert.deepEqual(defaultKeep([0, 0.5, 1]), [0, 1], 'with two bins, nothing is trimmed');
  assert.throws(() => parseKeep('5', DEFAULT_EDGES, '--keep'), /--keep: bin "5" is not one of 0..4/);
});

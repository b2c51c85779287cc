import assert from 'node:assert/strict';
import { test } from 'node:test';
import { simulateAdaptiveProbing, probingDecision, sampleOutcomeSequences } from '../../stats/adaptive-probing.js';
import { DEFAULT_EDGES } from '../../stats/bins.js';
import { binMasses } from '../../stats/jeffreys.js';
import { seededRandom } from '../../stats/random.js';

test('the rule stops once one bin holds 90% of the posterior, or at n_max', () => {
  const rule = { edges: DEFAULT_EDGES, nMax: 20 };
  assert.equal(probingDecision(0, 0, rule).stop, false, 'the prior is not confident');
  // Find the first n at which n straight failures put >= 0.9 on [0,.08); the rule must stop exactly there.
  let n = 0;
  while (binMasses(0, n, DEFAULT_EDGES)[0]! < 0.9) n++;
  assert.equal(probingDecision(0, n - 1, rule).stop, false);
  assert.deepEqual(
    { ...probingDecision(0, n, rule), maxMass: undefined },
    { stop: true, reason: 'confident', bin: 0, maxMass: undefined },
  );
  assert.ok(n > 5 && n < 20, `all-failure tasks stop early (n=${n})`);
  const middle = probingDecision(10, 20, rule);
  assert.equal(middle.reason, 'n-max', '10/20 is not 90% sure of [.4,.6)');
  assert.equal(middle.bin, 2);
});

test('simulation: episodes saved against fixed n, and how often the bin changes', () => {
  const random = seededRandom(3);
  const rates = Array.from({ length: 300 }, () => random() ** 2); // many hard tasks, as probe pools tend to have
  const sequences = sampleOutcomeSequences(rates, 40, 11);
  const sim = simulateAdaptiveProbing(sequences, DEFAULT_EDGES);
  assert.equal(sim.tasks, 300);
  assert.equal(sim.fixedEpisodes, 12000);
  assert.equal(
    sim.adaptiveEpisodes,
    sim.perTask.reduce((s, t) => s + t.adaptiveN, 0),
  );
  assert.ok(
    sim.saved > 0 && sim.savedFraction > 0.2,
    `saves episodes (${sim.saved}, ${(100 * sim.savedFraction).toFixed(1)}%)`,
  );
  assert.equal(sim.binChanged, sim.perTask.filter((t) => t.adaptiveBin !== t.fixedBin).length);
  assert.ok(sim.binChangedFraction < 0.05, `bins rarely change (${(100 * sim.binChangedFraction).toFixed(1)}%)`);
  for (const t of sim.perTask) {
    if (t.adaptiveN === t.fixedN) assert.equal(t.adaptiveBin, t.fixedBin, 'a task run to n_max gets the fixed-n bin');
  }
  const strict = simulateAdaptiveProbing(sequences, DEFAULT_EDGES, 0.97);
  assert.ok(strict.saved < sim.saved, 'a stricter threshold saves less');
  // At n_max = 20 only tasks that fail (or pass) 16 times in a row can stop early, so the saving is small but real.
  const short = simulateAdaptiveProbing(
    sequences.map((s) => ({ ...s, outcomes: s.outcomes.slice(0, 20) })),
    DEFAULT_EDGES,
  );
  assert.ok(short.saved > 0 && short.saved < sim.saved);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnfinishedCriterion } from '../../schemas/demo.js';
import { judgeUnfinished, type EpisodeCostRow } from '../../stats/unfinished.js';

const rows = (done: number, cut: number, tokens: number, cost: number): EpisodeCostRow[] => [
  ...Array.from({ length: done }, () => ({ finishReason: 'agent_done' as const, agentTokens: tokens, costUsd: cost })),
  ...Array.from({ length: cut }, () => ({ finishReason: 'max_tokens' as const, agentTokens: tokens, costUsd: cost })),
];
const criterion = UnfinishedCriterion.parse({});

test('the criterion holds while unfinished episodes and cost stay within their bounds', () => {
  const verdict = judgeUnfinished(rows(95, 5, 1000, 0.002), rows(91, 9, 1200, 0.0024), criterion);
  assert.equal(verdict.met, true, verdict.missed.join('; '));
  assert.equal(verdict.base.share, 0.05);
  assert.deepEqual(verdict.trained.byReason, { max_tokens: 9 });
});

test('a rise in unfinished share, or in tokens or cost per episode, misses it and says by how much', () => {
  const shifted = judgeUnfinished(rows(95, 5, 1000, 0.002), rows(85, 15, 1000, 0.002), criterion);
  assert.equal(shifted.met, false);
  assert.match(shifted.missed.join(';'), /unfinished share rose 10\.0 points \(bound 5\)/);
  const costly = judgeUnfinished(rows(95, 5, 1000, 0.002), rows(95, 5, 1400, 0.0028), criterion);
  assert.equal(costly.met, false);
  assert.match(costly.missed.join(';'), /agent tokens per episode 1\.40x/);
  assert.match(costly.missed.join(';'), /cost per episode 1\.40x/);
  // No trained rollouts to judge: never reported as met.
  assert.equal(judgeUnfinished(rows(10, 0, 1, 1), [], criterion).met, false);
});

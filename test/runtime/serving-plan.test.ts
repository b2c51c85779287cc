import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { durationMs, episodeWaits, LOAD_FACTOR, planWaits } from '../../cli/campaign-start/serving-plan.js';
import { CampaignConfig } from '../../schemas/campaign.js';

// The example cluster preset's campaign with the reference run's token limits: 26,624 prompt + 106,496 response
// tokens, turns of up to 106,496 sampled tokens. At 4,000 prompt and 20 sampled tokens/s a request (a 27B model's
// decode rate on one request), the longest call is (133,120 / 4,000 + 106,496 / 20) s, times the load factor.
const preset = JSON.parse(fs.readFileSync(fromRoot('docs', 'examples', 'cluster.json'), 'utf8')) as {
  campaign: Record<string, unknown> & { policy: { client: Record<string, unknown> } };
};
const reference = (extra: Record<string, unknown> = {}) => ({
  ...preset.campaign,
  limits: { maxContextTokens: 133_120, maxAgentTurns: 4 },
  policy: { kind: 'served', client: { ...preset.campaign.policy.client, sampling: { maxTokens: 106_496 } } },
  ...extra,
});
const speed = { prefillTokensPerSecond: 4000, decodeTokensPerSecond: 20 };
const perCallMs = Math.ceil(LOAD_FACTOR * (133_120 / 4000 + 106_496 / 20) * 1000);

test('the waits follow from the token limits and the speed', () => {
  const config = CampaignConfig.parse(reference());
  const waits = episodeWaits(config.limits, 106_496, speed);
  assert.equal(waits.perCallMs, perCallMs);
  assert.equal(waits.attemptMs, 4 * perCallMs + config.limits.timeoutMs + 5 * 60_000);
  assert.equal(durationMs('15m'), 900_000);
  assert.equal(durationMs('1.5s'), 1500);
});

test('unstated waits are derived where the defaults are too short; stated ones too short are refused by name', () => {
  const raw = reference();
  const planned = planWaits(CampaignConfig.parse(raw), raw, speed);
  assert.deepEqual(planned.problems, []);
  const client = planned.config.policy.kind === 'served' ? planned.config.policy.client : undefined;
  assert.equal(client?.timeoutMs, perCallMs, 'the 2-minute default would cut every long turn');
  assert.equal(planned.config.episodes.heartbeatTimeout, `${Math.ceil(perCallMs / 1000)}s`);
  assert.equal(
    durationMs(planned.config.episodes.startToCloseTimeout),
    Math.ceil(planned.waits.attemptMs / 1000) * 1000,
  );
  assert.equal(planned.derived.length, 3, planned.derived.join('; '));

  const stated = reference({
    policy: {
      kind: 'served',
      client: { ...preset.campaign.policy.client, sampling: { maxTokens: 106_496 }, timeoutMs: 120_000 },
    },
    episodes: { startToCloseTimeout: '15m' },
  });
  const refused = planWaits(CampaignConfig.parse(stated), stated, speed);
  assert.equal(refused.problems.length, 2);
  assert.match(refused.problems[0]!, /^policy\.client\.timeoutMs 120 s is shorter than the \d+ s the limits need/);
  assert.match(refused.problems[1]!, /^episodes\.startToCloseTimeout 900 s is shorter/);
  assert.deepEqual(refused.derived, [`episodes.heartbeatTimeout: from 120 s to ${Math.round(perCallMs / 1000)} s`]);

  // The example preset's own limits (8,192 tokens of context, turns of 1,024) at 20 sampled tokens/s already need
  // more than the 2-minute default; on a server ten times faster they need nothing changed.
  const example = planWaits(CampaignConfig.parse(preset.campaign), preset.campaign, speed);
  assert.equal(example.derived[0], 'policy.client.timeoutMs: from 120 s to 213 s');
  const fast = { prefillTokensPerSecond: 20_000, decodeTokensPerSecond: 200 };
  const quick = planWaits(CampaignConfig.parse(preset.campaign), preset.campaign, fast);
  assert.deepEqual([quick.derived, quick.problems], [[], []]);
});

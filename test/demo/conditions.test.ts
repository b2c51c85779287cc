import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withPresetConditions } from '../../cli/commands/eval.js';
import { campaignConfigOf, loadPreset, presetConditions } from '../../cli/demo/preset.js';
import { EvaluationConfig } from '../../schemas/campaign.js';

// One way to evaluate: the campaign of a preset, `model pass-rate --preset` and `eval --preset` share its conditions.
const { preset } = loadPreset('mini');
const conditions = presetConditions(preset);

test("a preset's campaign runs every episode under the preset's limits and sampling", () => {
  const campaign = campaignConfigOf(preset, 'demo-mini-test', '/tmp/base');
  assert.deepEqual(campaign.limits, conditions.limits);
  assert.equal(campaign.policy.kind, 'served');
  if (campaign.policy.kind === 'served') assert.deepEqual(campaign.policy.client.sampling, conditions.sampling);
  assert.equal(conditions.limits.maxAgentTurns, preset.campaign.limits.maxAgentTurns);
  assert.equal(conditions.sampling.maxTokens, preset.sampling.maxTokens);
});

const evalConfig = (extra: Record<string, unknown> = {}, client: Record<string, unknown> = {}) => ({
  evaluationId: 'e1',
  policy: { kind: 'served', client: { baseUrl: 'http://127.0.0.1:8411', model: 'policy', ...client } },
  tasks: { taskSet: 'tasks', split: 'eval', profile: 'mini' },
  ...extra,
});

test('eval --preset fills in the limits and sampling, and accepts a config that states the same ones', () => {
  const filled = EvaluationConfig.parse(withPresetConditions(evalConfig(), conditions, 'evaluation config e.json'));
  assert.deepEqual(filled.limits, conditions.limits);
  assert.equal(filled.policy.kind, 'served');
  if (filled.policy.kind === 'served') assert.deepEqual(filled.policy.client.sampling, conditions.sampling);
  // Without the preset, the schema's own defaults apply: the two sets of conditions the issue found.
  const plain = EvaluationConfig.parse(evalConfig());
  assert.notDeepEqual(plain.limits, conditions.limits);
  const same = evalConfig({ limits: { ...preset.campaign.limits } }, { sampling: { maxTokens: 48 } });
  assert.doesNotThrow(() => withPresetConditions(same, conditions, 'evaluation config e.json'));
});

test('eval --preset refuses a config that states other conditions, naming the field and the file', () => {
  assert.throws(
    () => withPresetConditions(evalConfig({ limits: { maxAgentTurns: 12 } }), conditions, 'evaluation config e.json'),
    /evaluation config e\.json: limits is \{"maxAgentTurns":12\}, but --preset sets/,
  );
  assert.throws(
    () =>
      withPresetConditions(evalConfig({}, { sampling: { maxTokens: 256 } }), conditions, 'evaluation config e.json'),
    /policy\.client\.sampling is \{"maxTokens":256\}/,
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../core/errors.js';
import { campaignConfigOf, derivedCampaignId, loadPreset, withReprobe } from '../../cli/demo/preset.js';

// A dry check of `finalstate demo --reprobe-every N [--reprobe-n M]`: the campaign config it would start, without
// running the demo.
test('--reprobe-every turns re-probing on in the campaign config, under its own campaign id', () => {
  const { preset } = loadPreset('mini');
  assert.equal(preset.campaign.reprobe, undefined, 'the shipped preset keeps a frozen pool');
  const frozenId = derivedCampaignId(preset, 'base-hash');
  assert.equal(withReprobe(preset, {}), preset, 'no flag: the same preset, so the same campaign as before');

  const reprobing = withReprobe(preset, { everySteps: 12 });
  const id = derivedCampaignId(reprobing, 'base-hash');
  assert.notEqual(id, frozenId);
  assert.match(id, /^demo-mini-[0-9a-f]{10}$/);
  assert.equal(derivedCampaignId(withReprobe(preset, { everySteps: 12 }), 'base-hash'), id, 'stable, so it resumes');
  assert.notEqual(derivedCampaignId(withReprobe(preset, { everySteps: 6 }), 'base-hash'), id);

  const config = campaignConfigOf(reprobing, id, '/models/base');
  assert.deepEqual(config.reprobe, { everySteps: 12 });
  // Everything else is the preset's: the comparison against the frozen run differs only in re-probing.
  const frozen = campaignConfigOf(preset, id, '/models/base');
  assert.deepEqual({ ...config, reprobe: undefined }, { ...frozen, reprobe: undefined });
  assert.equal('reprobe' in frozen, false);

  assert.deepEqual(campaignConfigOf(withReprobe(preset, { everySteps: 12, n: 2 }), id, '/b').reprobe, {
    everySteps: 12,
    n: 2,
  });
  assert.throws(() => withReprobe(preset, { n: 2 }), UserError);
});

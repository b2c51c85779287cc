import { z } from 'zod';
import { CampaignConfig, UpdateConfig } from './campaign.js';
import { ModelPrices } from './runtime.js';

const Positive = z.number().int().positive();

/**
 * A demo preset (cli/demo/presets/*.json): everything `finalstate demo` needs to run a campaign on embedded defaults.
 * The campaign part is a CampaignConfig without what the demo fills in itself: the id (derived from the preset), the
 * served policy (its own policy server), the base model (its own build) and the task queues.
 */
export const DemoPreset = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'preset names are lower-case letters, digits and -'),
    description: z.string().min(1),
    baseModel: z
      .object({
        steps: Positive.optional().describe("SFT steps (default: the build's, 1500)."),
        maxDemos: Positive.optional().describe(
          'Train on at most N oracle demonstrations (default: all training-split mini tasks).',
        ),
        seed: z.number().int().default(0),
      })
      .strict()
      .prefault({}),
    policyServer: z
      .object({
        port: z
          .number()
          .int()
          .min(1)
          .max(65_535)
          .describe('Fixed, so that a resumed campaign finds its server at the same URL.'),
        maxBatchSize: Positive.default(32),
        batchWaitMs: z
          .number()
          .min(0)
          .default(5)
          .describe(
            'How long the server gathers requests into a batch. Episodes come back from their tool calls tens of ms apart; waiting for them fills the batch.',
          ),
        threads: Positive.default(1).describe(
          'torch threads of the policy server on CPU (1: a tiny model decodes fastest single-threaded on a shared 2-core machine).',
        ),
      })
      .strict(),
    sampling: z
      .object({ maxTokens: Positive.default(256), temperature: z.number().min(0).default(1) })
      .strict()
      .prefault({})
      .describe('Sampling of the served policy for every episode (probe, training and evaluation alike).'),
    prices: ModelPrices.default({}).describe(
      'US dollars per million tokens by model name; the local policy is served as "policy". A notional price of local compute, so that cost per dependable task means something.',
    ),
    episodeConcurrency: Positive.default(8).describe("Episodes the demo's episode worker runs at once."),
    campaign: CampaignConfig.omit({
      campaignId: true,
      policy: true,
      policyServers: true,
      taskQueues: true,
      update: true,
    }).extend({
      update: UpdateConfig.omit({ baseModel: true, checkpointDir: true }).prefault({}),
    }),
  })
  .strict();
export type DemoPreset = z.infer<typeof DemoPreset>;
export type DemoPresetInput = z.input<typeof DemoPreset>;

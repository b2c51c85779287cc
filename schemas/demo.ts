import { z } from 'zod';
import { CampaignConfigFields, UpdateConfig } from './campaign.js';
import { ModelPrices } from './runtime.js';

const Positive = z.number().int().positive();

/**
 * What the trained policy may not pay for its gain in, fixed before a run and judged on training-split episodes only
 * (stats/unfinished.ts): its rollouts of the last steps against the base policy's probe of the same candidates.
 */
export const UnfinishedCriterion = z
  .object({
    lastSteps: Positive.default(10).describe('Rollouts of this many last GRPO steps stand for the trained policy.'),
    maxRisePoints: z
      .number()
      .min(0)
      .default(5)
      .describe(
        'Share of unfinished episodes (turn limit, token limit, context overflow, timeout) may rise by at most this many points.',
      ),
    maxCostRatio: z
      .number()
      .min(1)
      .default(1.3)
      .describe('Agent tokens and cost per episode may grow by at most this factor.'),
  })
  .strict();
export type UnfinishedCriterion = z.infer<typeof UnfinishedCriterion>;

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
        checkpoint: z
          .string()
          .min(1)
          .optional()
          .describe(
            'A Hugging Face checkpoint directory to start from instead of building the tiny base model (e.g. one that `finalstate model import` wrote); `demo --base-model DIR` sets it too.',
          ),
        steps: Positive.optional().describe("SFT steps (default: the build's, 1500)."),
        maxDemos: Positive.optional().describe(
          'Train on at most N oracle demonstrations (default: all training-split mini tasks).',
        ),
        seed: z.number().int().default(0),
        maxPositions: Positive.optional().describe(
          "The built model's context length (default 2,048): RoPE positions, no weight depends on it; a ThinkingBox prompt needs 7-15k.",
        ),
        domains: z
          .array(z.string().min(1))
          .min(1)
          .optional()
          .describe("Demonstrate only these domains' training splits (default: every built-in domain's, from tasks/)."),
        ruleBreakingShare: z
          .number()
          .min(0)
          .max(1)
          .default(0)
          .describe(
            'Share of every training task family with a pack-stated rule-breaking path that is demonstrated by that path (the base model then applies the domain rules inconsistently). Fixed before a run; eval tasks are never demonstrated.',
          ),
        contextWeight: z
          .number()
          .min(0)
          .max(1)
          .default(0)
          .describe(
            "SFT loss weight of every non-assistant token of a demonstration (system prompt, user turns, tool responses); 0 trains on the assistant's tokens only.",
          ),
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
        engine: z
          .enum(['finalstate', 'vllm'])
          .default('finalstate')
          .describe(
            "What serves the rollouts: the project's own policy server, or vLLM (python.vllmVenv, infra/vllm-server.ts) publishing through reload_weights.",
          ),
        maxModelLen: Positive.optional().describe("vLLM's --max-model-len (default: the model's own context length)."),
        vllmArgs: z
          .array(z.string())
          .default([])
          .describe(
            'More vLLM arguments, e.g. --enable-auto-tool-choice --tool-call-parser hermes so that its chat API takes tools (a reference probe or an LLM user on the same server).',
          ),
      })
      .strict(),
    gpuWorker: z
      .object({
        ranks: Positive.default(1).describe(
          'Ranks of the gpu worker: above 1 it runs FSDP2-sharded under torchrun (gloo on a machine without CUDA).',
        ),
      })
      .strict()
      .prefault({}),
    sampling: z
      .object({ maxTokens: Positive.default(256), temperature: z.number().min(0).default(1) })
      .strict()
      .prefault({})
      .describe('Sampling of the served policy for every episode (probe, training and evaluation alike).'),
    prices: ModelPrices.default({}).describe(
      'US dollars per million tokens by model name; the local policy is served as "policy". A notional price of local compute, so that cost per dependable task means something.',
    ),
    episodeConcurrency: Positive.default(8).describe("Episodes the demo's episode worker runs at once."),
    thinkingbox: z
      .object({
        tests: z
          .array(z.string().min(1))
          .min(1)
          .describe(
            'ThinkingBox test-case files or folders, relative to the project (e.g. tasks/thinkingbox/test_case).',
          ),
        evalShare: z
          .number()
          .min(0)
          .max(1)
          .default(0.25)
          .describe(
            "Share of the tests imported as the eval split (chosen by a hash of each test's uid), the rest train.",
          ),
      })
      .strict()
      .optional()
      .describe(
        "A campaign on ThinkingBox tasks: the demo imports these tests (ThinkingBox's hydrator, sources left out) into <dataDir>/thinkingbox/demo-<preset>/, and both task sources of the campaign read that set.",
      ),
    unfinished: UnfinishedCriterion.prefault({}).describe(
      'The criterion over unfinished episodes and cost that the demo judges and prints after training.',
    ),
    campaign: CampaignConfigFields.omit({
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

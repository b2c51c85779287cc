import { z } from 'zod';

/*
 * Usage and prices of one episode. The statistics branch defines the same shapes in schemas/results.ts
 * (TokenUsage, ModelPrice); when both are merged, these should become re-exports of those.
 */

const Count = z.number().int().nonnegative();
const Usd = z.number().nonnegative().finite();

/** Tokens spent by one role. `inputTokens` includes `cachedInputTokens` (OpenAI's convention). */
export const TokenUsage = z
  .object({
    inputTokens: Count,
    cachedInputTokens: Count.describe('The part of inputTokens served from the prompt cache.'),
    outputTokens: Count,
  })
  .strict();
export type TokenUsage = z.infer<typeof TokenUsage>;

/** US dollars per million tokens. */
export const ModelPrice = z.object({ input: Usd, cachedInput: Usd, output: Usd }).strict();
export type ModelPrice = z.infer<typeof ModelPrice>;

/** Price per model name (the name the endpoint reports or the config gives). */
export const ModelPrices = z.record(z.string().min(1), ModelPrice);
export type ModelPrices = z.infer<typeof ModelPrices>;

/** Who turned model output into turns: our interpreter (token in, token out) or a hosted provider's chat API. */
export const InterpretedBy = z.enum(['finalstate', 'provider']);
export type InterpretedBy = z.infer<typeof InterpretedBy>;

/** One rubric's outcome (deterministic or judged). */
export const RubricVerdict = z
  .object({
    rubric: z.number().int().min(0).describe('Index in task.rubrics.'),
    kind: z.enum(['must_not_reveal', 'must_mention', 'judge']),
    passed: z.boolean(),
    answer: z.enum(['yes', 'no', 'unparsed']).optional().describe('Judge rubrics: the parsed answer.'),
    motivation: z.string().optional().describe("Judge rubrics: the judge's reasoning, stored verbatim."),
    detail: z.string().describe('Why it passed or failed, for people reading the episode.'),
  })
  .strict();
export type RubricVerdict = z.infer<typeof RubricVerdict>;

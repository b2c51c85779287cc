import { z } from 'zod';

// Usage and prices have one definition, in schemas/results.ts (the result row carries them).
export { ModelPrice, ModelPrices, TokenUsage } from './results.js';

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

import { z } from 'zod';

/**
 * `python -m finalstate.token_scores`: the log-probs that a checkpoint gives a token sequence, computed as the trainer
 * computes them (grpo/trainer.py token_log_probs), to compare with what a server serves for the same tokens.
 */
export const TokenScoreRequest = z
  .object({
    checkpointDir: z.string().min(1).describe('A Hugging Face checkpoint directory.'),
    tokenIds: z.array(z.number().int().min(0)).min(2).describe('Prompt then completion tokens.'),
    promptTokens: z.number().int().positive().describe('How many of tokenIds are the prompt.'),
  })
  .strict();
export type TokenScoreRequest = z.infer<typeof TokenScoreRequest>;

export const TokenScoreReport = z
  .object({
    logprobs: z
      .array(z.number())
      .describe('log p(completion token i | the tokens before it), one per completion token.'),
  })
  .strict();
export type TokenScoreReport = z.infer<typeof TokenScoreReport>;

import { z } from 'zod';

const TokenId = z.number().int().min(0);
const Count = z.number().int().min(0);

/** A run of tokens of one origin: sampled by the policy (trained on) or an observation tokenised by the server. */
export const TrajectorySegment = z
  .object({
    kind: z.enum(['observation', 'sample']),
    start: Count.describe('First token index.'),
    end: Count.describe('Token index after the last token.'),
    textStart: Count.describe('Offset of the segment in the trajectory text.'),
    textEnd: Count,
    policyVersion: z.string().min(1).optional().describe('Samples only: the policy version that produced them.'),
    finishReason: z.enum(['stop', 'length']).optional().describe('Samples only: why sampling ended.'),
  })
  .strict();
export type TrajectorySegment = z.infer<typeof TrajectorySegment>;

/** Where the detokenised trajectory first differs from the rendered conversation. */
export const TrajectoryDrift = z
  .object({
    index: Count.describe('Character offset of the first difference.'),
    segment: Count.nullable().describe('Index of the segment holding that offset (null when past the end).'),
    expected: z.string().describe('Rendered conversation text around the offset.'),
    actual: z.string().describe('Detokenised trajectory text around the offset.'),
  })
  .strict();
export type TrajectoryDrift = z.infer<typeof TrajectoryDrift>;

/**
 * Token-in/token-out record of one episode. Position i of `lossMask` and `rolloutLogprobs` describes token i: sampled
 * tokens have mask 1 and the logprob the policy server returned; observation tokens have mask 0 and logprob 0. The
 * field names match TrainingEpisode, so an episode becomes a batch row without conversion.
 */
/** The token columns of a trajectory, shared with the builder's checkpointed state (schemas/checkpoint.ts). */
export const TrajectoryTokens = z
  .object({
    tokenIds: z.array(TokenId),
    lossMask: z.array(z.number().int().min(0).max(1)),
    rolloutLogprobs: z.array(z.number().max(0)),
    segments: z.array(TrajectorySegment),
    policyVersions: z
      .array(z.string().min(1))
      .describe('Distinct policy versions that sampled, in order of first use.'),
    drift: TrajectoryDrift.nullable().describe('Set when the tokens do not spell the rendered conversation.'),
  })
  .strict();

export const Trajectory = TrajectoryTokens.extend({
  trainable: z.boolean().describe('False when drift is set: such an episode is never trained on.'),
})
  .strict()
  .superRefine((t, ctx) => {
    if (t.lossMask.length !== t.tokenIds.length || t.rolloutLogprobs.length !== t.tokenIds.length) {
      ctx.addIssue({ code: 'custom', message: 'lossMask and rolloutLogprobs must have one entry per token id' });
    }
    let next = 0;
    t.segments.forEach((segment, index) => {
      if (segment.start !== next || segment.end < segment.start) {
        ctx.addIssue({ code: 'custom', path: ['segments', index], message: `segment must start at token ${next}` });
      }
      next = segment.end;
    });
    if (next !== t.tokenIds.length)
      ctx.addIssue({ code: 'custom', path: ['segments'], message: 'segments must cover every token' });
    if (t.trainable !== (t.drift === null))
      ctx.addIssue({ code: 'custom', path: ['trainable'], message: 'trainable must equal (drift === null)' });
  });
export type Trajectory = z.infer<typeof Trajectory>;

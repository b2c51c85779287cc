import type { Trajectory } from '../../schemas/trajectory.js';

export interface LossColumns {
  lossMask: number[];
  rolloutLogprobs: number[];
  /** Sampled turns that ended at the per-turn token limit (finish reason 'length'). */
  truncatedTurns: number;
  /** Loss tokens taken out of the loss because their turn was truncated (0 unless masking). */
  maskedTokens: number;
}

/**
 * The loss columns of a trajectory, with every turn cut off by the token limit left out of the loss when `mask`
 * (DAPO's overlong filtering, per turn rather than per episode). A cut-off turn is unfinished text, often a
 * degenerate one; pushing its tokens down under a failed episode's negative advantage flattens the policy exactly
 * where it is already lost. The episode's reward and its finished turns still train.
 */
export function lossColumns(trajectory: Pick<Trajectory, 'lossMask' | 'rolloutLogprobs' | 'segments'>, mask: boolean): LossColumns {
  const lossMask = [...trajectory.lossMask];
  const rolloutLogprobs = [...trajectory.rolloutLogprobs];
  let truncatedTurns = 0;
  let maskedTokens = 0;
  for (const segment of trajectory.segments) {
    if (segment.kind !== 'sample' || segment.finishReason !== 'length') continue;
    truncatedTurns += 1;
    if (!mask) continue;
    for (let i = segment.start; i < segment.end; i += 1) {
      maskedTokens += lossMask[i]!;
      lossMask[i] = 0;
      rolloutLogprobs[i] = 0;
    }
  }
  return { lossMask, rolloutLogprobs, truncatedTurns, maskedTokens };
}

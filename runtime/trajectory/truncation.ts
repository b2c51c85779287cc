import { versionNumber } from '../../core/policy-versions.js';
import type { UpdateConfig } from '../../schemas/campaign.js';
import type { Trajectory } from '../../schemas/trajectory.js';

export type TruncationOptions = Partial<Pick<UpdateConfig, 'maskTruncatedTurns' | 'truncationPenalty'>>;

export interface TrainingColumns {
  lossMask: number[];
  rolloutLogprobs: number[];
  /** The policy version that sampled each token (versionNumber of its sample segment's policyVersion), else -1. */
  rolloutVersions: number[];
  /** The training reward: the 0/1 reward, less truncationPenalty when a turn was cut off. */
  reward: number;
  /** Sampled turns that ended at the per-turn token limit (finish reason 'length'). */
  truncatedTurns: number;
  /** Loss tokens taken out of the loss because their turn was cut off (0 unless maskTruncatedTurns). */
  maskedTokens: number;
}

/**
 * What a batch row trains on, given how cut-off turns (a sample that hit the per-turn token limit) are treated:
 * with `maskTruncatedTurns` their tokens leave the loss (DAPO's overlong filtering, per turn); with
 * `truncationPenalty` the episode's training reward drops by that much (DAPO's overlong punishment, as a constant).
 * Every token also gets the version of the policy that sampled it, which the trainer's staleness figures read.
 * The trajectory itself is not modified. docs/experiments.md (runs 9 and 10) has what each option did.
 */
export function trainingColumns(
  trajectory: Pick<Trajectory, 'lossMask' | 'rolloutLogprobs' | 'segments'>,
  reward: number,
  options: TruncationOptions = {},
): TrainingColumns {
  const lossMask = [...trajectory.lossMask];
  const rolloutLogprobs = [...trajectory.rolloutLogprobs];
  const rolloutVersions = new Array<number>(lossMask.length).fill(-1);
  let truncatedTurns = 0;
  let maskedTokens = 0;
  for (const segment of trajectory.segments) {
    if (segment.kind !== 'sample') continue;
    rolloutVersions.fill(versionNumber(segment.policyVersion), segment.start, segment.end);
    if (segment.finishReason !== 'length') continue;
    truncatedTurns += 1;
    if (!options.maskTruncatedTurns) continue;
    for (let i = segment.start; i < segment.end; i += 1) {
      maskedTokens += lossMask[i]!;
      lossMask[i] = 0;
      rolloutLogprobs[i] = 0;
    }
  }
  const trainingReward = truncatedTurns > 0 ? reward - (options.truncationPenalty ?? 0) : reward;
  return { lossMask, rolloutLogprobs, rolloutVersions, reward: trainingReward, truncatedTurns, maskedTokens };
}

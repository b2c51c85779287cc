import { z } from 'zod';
import { FinishReason } from './episode.js';

const Count = z.number().int().min(0);

/** One measured episode: what its agent turns asked of the rollout server, and the time spent off the server. */
export const ProfiledEpisode = z
  .object({
    taskId: z.string().min(1).optional().describe('Absent when read from bare trajectory files.'),
    finishReason: FinishReason.optional(),
    turns: z
      .array(z.tuple([Count, Count]))
      .min(1)
      .describe(
        'Per agent turn (one sampled completion): [new prompt tokens since the previous completion, sampled tokens].',
      ),
    trailingTokens: Count.describe('Observation tokens after the last completion (trained on, never prefilled).'),
    envMsPerTurn: z
      .number()
      .min(0)
      .describe('Tool calls and the simulated user, per agent turn (the record: (toolsMs + userMs) / turns).'),
    overheadMs: z
      .number()
      .min(0)
      .describe(
        'The rest of the attempt off the policy server: database, MCP session, grading, trajectory (totalMs - agentMs - toolsMs - userMs).',
      ),
  })
  .strict();
export type ProfiledEpisode = z.infer<typeof ProfiledEpisode>;

/**
 * The empirical distribution of episodes that bench/cluster-sim draws from (bench/data/turn-profile.json), written
 * by `node dist/bench/cluster-sim.js --profile-from DIR_OR_CAMPAIGN`.
 */
export const TurnProfile = z
  .object({
    source: z.string().min(1).describe('Which run the episodes come from: command, campaign, commit, model.'),
    measuredAt: z.string().min(1),
    episodes: z.array(ProfiledEpisode).min(1),
  })
  .strict();
export type TurnProfile = z.infer<typeof TurnProfile>;

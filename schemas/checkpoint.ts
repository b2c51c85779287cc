import { z } from 'zod';
import { Conversation } from './conversation.js';
import { AgentTurnRecord, ToolCallRecord } from './episode.js';
import { TokenUsage } from './results.js';
import { TrajectoryTokens } from './trajectory.js';

const Count = z.number().int().nonnegative();

/** A TrajectoryBuilder mid-episode: the tokens so far, what they spell, and any drift already found. */
export const TrajectoryBuilderState = TrajectoryTokens.extend({
  text: z.string().describe('The text the tokens are meant to spell.'),
}).strict();
export type TrajectoryBuilderState = z.infer<typeof TrajectoryBuilderState>;

/** What a policy carries from one turn to the next, so a resumed attempt samples on as if never interrupted. */
export const PolicyState = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('oracle'), nextGolden: Count }).strict(),
  z
    .object({
      kind: z.literal('completions'),
      turnIndex: Count.describe('Seeds sampling per turn (seed + turnIndex).'),
      trajectory: TrajectoryBuilderState,
    })
    .strict(),
  z
    .object({
      kind: z.literal('chat'),
      replies: z
        .array(z.tuple([Count, z.record(z.string(), z.unknown())]))
        .describe('Provider messages by turn index.'),
    })
    .strict(),
]);
export type PolicyState = z.infer<typeof PolicyState>;

/** The agent loop after a completed turn (the conversation ends with a user or tool turn). */
export const LoopState = z
  .object({
    conversation: Conversation,
    agentTurns: z.array(AgentTurnRecord),
    userTurns: Count.describe("The user simulator's position: messages it has written, the opening included."),
    usage: z.object({ agent: TokenUsage, user: TokenUsage }).strict(),
    userModel: z.string().nullable(),
    timings: z
      .object({
        agentMs: z.number().nonnegative(),
        toolsMs: z.number().nonnegative(),
        userMs: z.number().nonnegative(),
      })
      .strict(),
    elapsedMs: z
      .number()
      .nonnegative()
      .describe("The agent's clock so far: time in its tool calls, which counts against limits.timeoutMs."),
  })
  .strict();
export type LoopState = z.infer<typeof LoopState>;

/**
 * An episode's turn checkpoint, written after every completed turn into its own database (table
 * `_finalstate_checkpoint`). A retried attempt that reattaches restores it and continues with the next turn; its tool
 * calls carry indexes from the one after the last consumed, so a call already committed is answered from its record.
 */
export const TurnCheckpoint = z
  .object({
    episodeId: z.string().min(1),
    loop: LoopState,
    policy: PolicyState.nullable().describe('Null for a policy whose next turn depends on the conversation alone.'),
    toolCalls: z
      .array(ToolCallRecord)
      .describe('Calls answered so far; the next call gets the index after the last one consumed.'),
    resumedAt: z.array(Count).describe('Agent turns already done each time an attempt resumed from a checkpoint.'),
    servers: z
      .array(z.string())
      .optional()
      .describe(
        'The rollout servers that served the policy so far, in order; a resumed attempt stays on the last one while it is in service.',
      ),
  })
  .strict();
export type TurnCheckpoint = z.infer<typeof TurnCheckpoint>;

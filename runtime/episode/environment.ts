import type { TurnCheckpoint } from '../../schemas/checkpoint.js';
import type { Conversation } from '../../schemas/conversation.js';
import type { EpisodeRequest, FinishReason } from '../../schemas/episode.js';
import type { Task } from '../../schemas/task.js';
import type { UserSimulator } from '../clients/user-simulator.js';
import type { ToolCallRecord } from './mcp-tool-session.js';
import type { EpisodeScore } from './scoring.js';
import type { ToolSession } from './tool-session.js';

/**
 * The seam between an episode and what it plays in. Two environments implement it: a fresh PostgreSQL database with
 * the domain's tools served in-process (environments/postgres.ts) and a ThinkingBox session on ThinkingBox's proxy,
 * graded by ThinkingBox's test runner (environments/thinkingbox.ts). The episode runner, turn checkpoints, records,
 * audit pages, activities and workflows treat both alike; runtime/episode/scoring.ts decides every reward.
 */
export interface EpisodeEnvironment {
  /** Whether it plays this task (the task's format says). */
  plays(task: Task): boolean;
  /**
   * Open the episode's environment, or reattach to the one an earlier attempt of the same episode id left (then
   * `reattached` is true and the checkpoints hold where it stood). An outage is an InfrastructureError.
   */
  open(episodeId: string, task: Task, options: { attempt?: number }): Promise<OpenEnvironment>;
}

/** The tools of one open environment, with the calls they answered (what the record and the checkpoint keep). */
export interface EnvironmentTools extends ToolSession {
  readonly calls: ToolCallRecord[];
  /** Continue after the calls a checkpoint recorded. */
  resumeAfter(calls: readonly ToolCallRecord[]): void;
}

/** How the conversation ends besides the loop's own rules (ThinkingBox: `<DONE>`, end-turn tools). */
export interface ConversationRules {
  /** A visible agent message that ends the conversation (finish reason `agent_done`). */
  endsConversation?(text: string): boolean;
  /** Caps on the loop's limits, from the task (ThinkingBox's max_agent_sim_turns, max_user_sim_turns). */
  maxAgentTurns?: number;
  maxUserTurns?: number;
}

/** What the episode left for scoring. */
export interface PlayedEpisode {
  conversation: Conversation;
  toolCalls: readonly ToolCallRecord[];
  finishReason: FinishReason;
}

export interface OpenEnvironment {
  readonly episodeId: string;
  readonly reattached: boolean;
  /** The agent's system prompt. */
  readonly system: string;
  /** The system prompt as separate system messages, when the environment shows it so (`system` is their join). */
  readonly systemParts?: readonly string[];
  readonly rules: ConversationRules;
  loadCheckpoint(): Promise<TurnCheckpoint | undefined>;
  saveCheckpoint(checkpoint: TurnCheckpoint): Promise<void>;
  connectTools(): Promise<EnvironmentTools>;
  /** The environment's own user simulator for this request, or undefined for the runner's default. */
  userFor?(request: EpisodeRequest): UserSimulator | undefined;
  /** Grade and score the episode (through runtime/episode/scoring.ts). */
  score(played: PlayedEpisode, request: EpisodeRequest): Promise<EpisodeScore>;
  /** `fn` runs while this attempt holds the episode; a stale attempt gets a StaleAttemptError. */
  underLease<T>(fn: () => Promise<T>): Promise<T>;
  /** Keep the environment for a retried attempt (after an InfrastructureError, or to inspect it). */
  detach(): Promise<void>;
  /** Tear it down (the episode is over). */
  teardown(): Promise<void>;
}

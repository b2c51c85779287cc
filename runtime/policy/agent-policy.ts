import type { Conversation } from '../../schemas/conversation.js';
import type { InterpretedBy, TokenUsage } from '../../schemas/runtime.js';
import type { Trajectory } from '../../schemas/trajectory.js';
import type { ParsedOutput } from '../interpreter/renderer.js';

/** The agent's next message, interpreted: what to show, what to execute, what to feed back. */
export interface AgentStep extends ParsedOutput {
  model: string;
  policyVersion: string;
  /** `length`: the turn hit its token limit. */
  finishReason: 'stop' | 'length';
  usage: TokenUsage;
}

/**
 * How the agent loop gets agent turns. The loop appends `step.turn`, executes `step.calls` through its ToolSession
 * (or, when `step.failures` is not empty, appends `failureFeedback(step.failures)`), and asks again.
 */
export interface AgentPolicy {
  readonly interpretedBy: InterpretedBy;
  /** The next agent message; `conversation` ends with a user or tool turn. */
  next(conversation: Conversation): Promise<AgentStep>;
  /** The token trajectory with its drift check (token-in/token-out policies), or null. */
  finish(conversation: Conversation): Promise<Trajectory | null>;
}

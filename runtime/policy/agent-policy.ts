import type { PolicyState } from '../../schemas/checkpoint.js';
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
  /**
   * The next agent message; `conversation` ends with a user or tool turn. When `signal` fires (the episode's
   * deadline) the policy gives up promptly, rejecting with the signal's reason, and keeps no part of the turn.
   */
  next(conversation: Conversation, options?: { signal?: AbortSignal }): Promise<AgentStep>;
  /** The token trajectory with its drift check (token-in/token-out policies), or null. */
  finish(conversation: Conversation): Promise<Trajectory | null>;
  /**
   * What the policy carries between turns, for the turn checkpoint; a policy without it must decide its next turn
   * from the conversation alone. `restoreState` is called once, before the first `next`, on a resumed attempt.
   */
  saveState?(): PolicyState;
  restoreState?(state: PolicyState): void;
}

/** The state a policy of `kind` saved, or an error naming what was found instead. */
export function stateOfKind<K extends PolicyState['kind']>(
  state: PolicyState,
  kind: K,
): Extract<PolicyState, { kind: K }> {
  if (state.kind !== kind) throw new Error(`policy checkpoint: expected a ${kind} policy state, found ${state.kind}`);
  return state as Extract<PolicyState, { kind: K }>;
}

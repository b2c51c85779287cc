import type { AssistantTurn, Conversation, ParseFailure } from '../../schemas/conversation.js';
import type { ToolCall } from '../../schemas/task.js';
import { NO_USAGE } from '../clients/user-simulator.js';
import type { AgentPolicy, AgentStep } from '../policy/agent-policy.js';

/** The model name a remote agent's turns carry (the agent is whoever drives the OpenEnv session). */
export const REMOTE_AGENT_MODEL = 'openenv-agent';

interface Waiting {
  resolve(step: AgentStep): void;
  reject(err: unknown): void;
}

/**
 * The agent of an episode served over OpenEnv: the agent loop (runtime/episode/loop.ts) asks it for each turn as it
 * asks any policy, and the turn is whatever action the remote agent sends next. So an OpenEnv episode is played by
 * the one loop, with its limits, finish reasons, user simulator and environment rules. `awaitingTurn` resolves when
 * the loop asks for the next turn (everything the last action caused is in the conversation by then).
 */
export class RemoteAgent implements AgentPolicy {
  readonly interpretedBy = 'provider' as const;
  private waiting: Waiting | undefined;
  private asked!: Promise<void>;
  private markAsked!: () => void;
  /** The loop's live conversation, from its last request for a turn. */
  conversation: Conversation | undefined;

  constructor() {
    this.rearm();
  }

  private rearm(): void {
    this.asked = new Promise((resolve) => (this.markAsked = resolve));
  }

  /** Resolves once the loop is waiting for the agent's next turn. */
  get awaitingTurn(): Promise<void> {
    return this.asked;
  }

  next(conversation: Conversation, options: { signal?: AbortSignal } = {}): Promise<AgentStep> {
    this.conversation = conversation;
    const { signal } = options;
    const step = new Promise<AgentStep>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const onAbort = () => reject(signal!.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = {
        resolve: (s) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(s);
        },
        reject,
      };
    });
    this.markAsked();
    return step;
  }

  /** Play one turn: a tool call, a message to the user (empty: the agent is done), or a turn refused as `failure`. */
  act(turn: { call: ToolCall } | { message: string } | { failure: ParseFailure; call: ToolCall }): void {
    const waiting = this.waiting;
    if (!waiting) throw new Error('the episode is not waiting for an agent turn');
    this.waiting = undefined;
    this.rearm();
    const assistant: AssistantTurn =
      'message' in turn
        ? { role: 'assistant', content: turn.message, toolCalls: [] }
        : { role: 'assistant', content: '', toolCalls: [turn.call] };
    waiting.resolve({
      turn: assistant,
      calls: 'failure' in turn || 'message' in turn ? [] : [turn.call],
      failures: 'failure' in turn ? [turn.failure] : [],
      coercions: [],
      model: REMOTE_AGENT_MODEL,
      policyVersion: REMOTE_AGENT_MODEL,
      finishReason: 'stop',
      usage: NO_USAGE,
    });
  }

  async finish(): Promise<null> {
    return null;
  }
}

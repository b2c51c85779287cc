import type { AgentPolicy, AgentStep } from '../../runtime/policy/agent-policy.js';
import type { PolicyState } from '../../schemas/checkpoint.js';
import type { Conversation } from '../../schemas/conversation.js';

/**
 * TEST-ONLY KNOB around a real policy (the oracle, in these tests): each turn first awaits `beforeTurn(n)` (n counts
 * the turns this policy object was asked for, from 1), which may delay the turn, so a test has time to kill a worker
 * or stop PostgreSQL mid-episode, or throw, to simulate a crash. Everything else is the wrapped policy's.
 */
export class SlowedPolicy implements AgentPolicy {
  asked = 0;
  readonly saveState?: () => PolicyState;
  readonly restoreState?: (state: PolicyState) => void;

  constructor(
    private readonly inner: AgentPolicy,
    private readonly beforeTurn: (turn: number) => Promise<void>,
  ) {
    if (inner.saveState) this.saveState = inner.saveState.bind(inner);
    if (inner.restoreState) this.restoreState = inner.restoreState.bind(inner);
  }

  get interpretedBy() {
    return this.inner.interpretedBy;
  }

  async next(conversation: Conversation): Promise<AgentStep> {
    this.asked += 1;
    await this.beforeTurn(this.asked);
    return this.inner.next(conversation);
  }

  finish(conversation: Conversation) {
    return this.inner.finish(conversation);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

import type { AssistantTurn, Conversation } from '../../schemas/conversation.js';
import type { Task, ToolCall } from '../../schemas/task.js';
import { renderPrompt, type ChatRenderer } from '../interpreter/renderer.js';
import { NO_USAGE } from '../clients/user-simulator.js';
import type { PolicyState } from '../../schemas/checkpoint.js';
import { stateOfKind, type AgentPolicy, type AgentStep } from './agent-policy.js';

export const ORACLE_MODEL = 'oracle';

/**
 * Drives the loop with the task's golden calls (or the calls it is given instead), one per turn, then a closing
 * message. Each message is written as
 * model text by the renderer and read back by the same parser a sampled completion goes through, so an oracle
 * episode exercises everything but sampling. The closing message states what the task's must_mention rubrics ask.
 */
export class OraclePolicy implements AgentPolicy {
  readonly interpretedBy = 'finalstate' as const;
  private next_ = 0;

  private readonly calls: readonly ToolCall[];

  constructor(
    private readonly task: Task,
    private readonly renderer: ChatRenderer,
    calls?: readonly ToolCall[],
  ) {
    this.calls = calls ?? task.golden;
  }

  /** The model text of one assistant turn, exactly as the renderer writes it inside the conversation. */
  private asModelText(conversation: Conversation, turn: AssistantTurn): string {
    const prompt = renderPrompt(this.renderer, conversation);
    const full = this.renderer.renderConversation({ ...conversation, turns: [...conversation.turns, turn] });
    let body = full.slice(prompt.length);
    for (const marker of this.renderer.endOfTurnMarkers)
      if (body.trimEnd().endsWith(marker)) body = body.trimEnd().slice(0, -marker.length);
    return body;
  }

  async next(conversation: Conversation): Promise<AgentStep> {
    const call = this.calls[this.next_];
    let turn: AssistantTurn;
    if (call) {
      this.next_++;
      turn = { role: 'assistant', content: '', toolCalls: [call] };
    } else {
      const mentions = this.task.rubrics.flatMap((r) => (r.kind === 'must_mention' ? [r.text] : []));
      turn = { role: 'assistant', content: ['Done: your request is handled.', ...mentions].join(' '), toolCalls: [] };
    }
    const parsed = this.renderer.parseOutput(this.asModelText(conversation, turn), conversation.tools);
    return { ...parsed, model: ORACLE_MODEL, policyVersion: ORACLE_MODEL, finishReason: 'stop', usage: NO_USAGE };
  }

  async finish(): Promise<null> {
    return null;
  }

  saveState(): PolicyState {
    return { kind: 'oracle', nextGolden: this.next_ };
  }

  restoreState(state: PolicyState): void {
    this.next_ = stateOfKind(state, 'oracle').nextGolden;
  }
}

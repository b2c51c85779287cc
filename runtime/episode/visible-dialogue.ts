import type { Conversation } from '../../schemas/conversation.js';

/** A message the user saw or wrote. */
export interface VisibleMessage {
  from: 'user' | 'agent';
  text: string;
}

/**
 * What the user side of the conversation sees: the user's messages and the agent's visible text. Reasoning, tool
 * calls and tool results stay hidden, as they would from a real customer.
 */
export function visibleDialogue(conversation: Conversation): VisibleMessage[] {
  const messages: VisibleMessage[] = [];
  for (const turn of conversation.turns) {
    if (turn.role === 'user') messages.push({ from: 'user', text: turn.content });
    else if (turn.role === 'assistant' && turn.content.trim() !== '')
      messages.push({ from: 'agent', text: turn.content.trim() });
  }
  return messages;
}

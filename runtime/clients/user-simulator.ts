import type { TokenUsage } from '../../schemas/runtime.js';
import type { VisibleMessage } from '../episode/visible-dialogue.js';

/** Written by a simulated user to end the conversation. */
export const STOP_MARKER = '###STOP###';

export interface UserReply {
  text: string;
  /** The user ends the conversation (finish reason `user_done`). */
  done: boolean;
  usage: TokenUsage;
  /** Model that wrote the reply; null for the deterministic simulator. */
  model: string | null;
}

export const NO_USAGE: TokenUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

/** The simulated user of an episode. It sees only the visible dialogue (see visibleDialogue). */
export interface UserSimulator {
  /** The first message: the task's query. */
  opening(): UserReply;
  /** The user's answer to the dialogue so far, which ends with an agent message. */
  reply(dialogue: readonly VisibleMessage[]): Promise<UserReply>;
}

/** Split a simulator's text into what it says and whether it wrote the stop marker. */
export function readStopMarker(text: string): { text: string; done: boolean } {
  if (!text.includes(STOP_MARKER)) return { text: text.trim(), done: false };
  return { text: text.split(STOP_MARKER).join('').trim(), done: true };
}

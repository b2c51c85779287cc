import type { AssistantTurn, Coercion, Conversation, ParseFailure, ToolSchema } from '../../schemas/conversation.js';
import type { ToolCall } from '../../schemas/task.js';

/** Model output split into its parts, with the calls typed against the tools' schemas. */
export interface ParsedOutput {
  /** The assistant turn as it enters the conversation (`raw` is the exact model text). */
  turn: AssistantTurn;
  /** Calls ready to execute: empty whenever `failures` is not. */
  calls: ToolCall[];
  /** All problems found; one malformed call means no call of this output is executed. */
  failures: ParseFailure[];
  coercions: Coercion[];
}

/**
 * A chat format. Rendering must be prefix-stable: rendering a conversation and then appending turns gives a text that
 * starts with the earlier rendering plus the generation prompt's continuation, so token-in/token-out trajectories
 * can grow by appending only.
 */
export interface ChatRenderer {
  readonly family: string;
  /** Every turn, each closed; the system turn carries the policy and the tools. */
  renderConversation(conversation: Conversation): string;
  /** What opens the agent's next turn (appended to the rendered conversation to form a prompt). */
  readonly generationPrompt: string;
  /** Markers that end a sampled agent turn (the model's end-of-turn tokens, as text). */
  readonly endOfTurnMarkers: readonly string[];
  parseOutput(text: string, tools: readonly ToolSchema[]): ParsedOutput;
  /** Inverse of renderConversation for canonical turns (used by round-trip tests and demonstrations). */
  parseConversation(text: string): Conversation;
}

/** The prompt for the agent's next turn. */
export function renderPrompt(renderer: ChatRenderer, conversation: Conversation): string {
  return renderer.renderConversation(conversation) + renderer.generationPrompt;
}

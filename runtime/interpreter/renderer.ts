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
 * A piece of a rendered conversation. `markup` is the chat format's own text (turn markers, tags), tokenised with its
 * control tokens; `content` came from outside the format (tool results, user messages, the system prompt, argument
 * values) and must never become a control token, however it is spelled.
 */
export interface RenderedPart {
  text: string;
  kind: 'markup' | 'content';
}

/** A chat message as plain text: role and content, nothing structured. */
export interface PlainMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
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
  /** The same text as renderConversation, as markup and content parts. */
  renderParts(conversation: Conversation): RenderedPart[];
  /**
   * The spellings of the family's control and markup tokens (`<|im_end|>`, `<tool_call>`, …): where content holds
   * one, it is tokenised in pieces so that it stays plain text.
   */
  readonly controlTokens: RegExp;
  /** What opens the agent's next turn (appended to the rendered conversation to form a prompt). */
  readonly generationPrompt: string;
  /** Markers that end a sampled agent turn (the model's end-of-turn tokens, as text). */
  readonly endOfTurnMarkers: readonly string[];
  parseOutput(text: string, tools: readonly ToolSchema[]): ParsedOutput;
  /**
   * The conversation as plain messages whose content is this format's own text of each turn: the tool list in the
   * system message, the calls in the assistant's, the results in a user message. A chat template without a tools
   * section is checked with these (the tools part is then the interpreter's; docs/interpreter.md).
   */
  plainMessages(conversation: Conversation): PlainMessage[];
  /** Inverse of renderConversation for canonical turns (used by round-trip tests and demonstrations). */
  parseConversation(text: string): Conversation;
}

/** The prompt for the agent's next turn. */
export function renderPrompt(renderer: ChatRenderer, conversation: Conversation): string {
  return renderer.renderConversation(conversation) + renderer.generationPrompt;
}

/** The prompt for the agent's next turn, as parts (what a token-in/token-out trajectory observes). */
export function renderPromptParts(renderer: ChatRenderer, conversation: Conversation): RenderedPart[] {
  return [...renderer.renderParts(conversation), { text: renderer.generationPrompt, kind: 'markup' }];
}

/**
 * The renderer's control-token spellings plus `extra` ones (the tokenizer's other added tokens, e.g. SmolLM2's
 * `<file_sep>`): where content holds any of them, it is tokenised in pieces so that it stays plain text.
 */
export function controlTokenPattern(renderer: ChatRenderer, extra: readonly string[] = []): RegExp {
  const own = new RegExp(`^(?:${renderer.controlTokens.source})$`);
  const more = extra
    .filter((token) => token.length > 1 && !own.test(token))
    .map((token) => token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return more.length === 0 ? renderer.controlTokens : new RegExp(`${renderer.controlTokens.source}|${more.join('|')}`);
}

/** The text of rendered parts. */
export const joinParts = (parts: readonly RenderedPart[]): string => parts.map((p) => p.text).join('');

import type { ToolTurn } from '../../schemas/conversation.js';
import { textPrefix } from './text-cut.js';

/** The part of an MCP `CallToolResult` the agent sees. */
export interface ToolResultLike {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * What the agent reads for one tool result: the text items joined by newlines (the structured content as JSON when
 * there is no text), prefixed with "Error: " when the tool reported an error, and cut to `maxChars` characters with a
 * marker saying so (never inside a surrogate pair).
 */
export function toolResultTurn(result: ToolResultLike, maxChars = Infinity): ToolTurn {
  const parts = (result.content ?? []).map((item) =>
    item.type === 'text' ? (item.text ?? '') : `[${item.type} content omitted]`,
  );
  let text = parts.join('\n');
  if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (result.isError && !/^error\b/i.test(text)) text = `Error: ${text}`;
  if (text.length > maxChars) {
    const shown = textPrefix(text, maxChars);
    text = `${shown}\n[tool result cut: showing the first ${shown.length} of ${text.length} characters]`;
  }
  return { role: 'tool', content: text };
}

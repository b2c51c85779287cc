import type { ToolTurn } from '../../schemas/conversation.js';

/** The part of an MCP `CallToolResult` the agent sees. */
export interface ToolResultLike {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * What the agent reads for one tool result: the text items joined by newlines (the structured content as JSON when
 * there is no text), prefixed with "Error: " when the tool reported an error.
 */
export function toolResultTurn(result: ToolResultLike): ToolTurn {
  const parts = (result.content ?? []).map((item) => (item.type === 'text' ? (item.text ?? '') : `[${item.type} content omitted]`));
  let text = parts.join('\n');
  if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (result.isError && !/^error\b/i.test(text)) text = `Error: ${text}`;
  return { role: 'tool', content: text };
}

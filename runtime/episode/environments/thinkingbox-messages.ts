import type { Conversation } from '../../../schemas/conversation.js';
import type { ThinkingBoxMessage } from '../../../schemas/thinkingbox.js';
import type { VisibleMessage } from '../visible-dialogue.js';
import type { ToolCallRecord } from '../mcp-tool-session.js';

/**
 * An episode's conversation as ThinkingBox's agent session would hold it (thinkingbox.common.chat_types): visible
 * assistant text as Text, reasoning as Text tagged `think`, each message's calls as one ParallelToolCall, each answer
 * as a ToolResponse with the call's id, a tool's direct response as Text tagged `direct`. Parse-failure feedback, which ThinkingBox's runner never produces, is left out.
 */
export function thinkingBoxMessages(conversation: Conversation): ThinkingBoxMessage[] {
  const messages: ThinkingBoxMessage[] = [];
  let pending: { name: string; id: string }[] = [];
  let callNo = 0;
  for (const turn of conversation.turns) {
    if (turn.role === 'user') {
      messages.push({ T: 'Text', role: 'user', content: turn.content, metadata: {} });
      pending = [];
    } else if (turn.role === 'assistant') {
      if (turn.reasoning)
        messages.push({ T: 'Text', role: 'assistant', content: turn.reasoning, metadata: { tag: 'think' } });
      if (turn.content.trim() !== '')
        messages.push({
          T: 'Text',
          role: 'assistant',
          content: turn.content,
          metadata: turn.direct ? { tag: 'direct' } : {},
        });
      pending = turn.toolCalls.map((c) => ({ name: c.tool, id: `call_${callNo++}` }));
      if (turn.toolCalls.length > 0)
        messages.push({
          T: 'ParallelToolCall',
          metadata: {},
          tool_calls: turn.toolCalls.map((c, i) => ({
            T: 'ToolCall',
            name: c.tool,
            arguments: c.arguments,
            id: pending[i]!.id,
            metadata: {},
          })),
        });
    } else {
      const call = pending.shift();
      if (call) messages.push({ T: 'ToolResponse', name: call.name, content: turn.content, id: call.id, metadata: {} });
    }
  }
  return messages;
}

/** The calls and answers as ThinkingBox's TestContext.tool_calls (ToolCallResponse). */
export function thinkingBoxToolCalls(calls: readonly ToolCallRecord[]): Record<string, unknown>[] {
  return calls.map((c, i) => ({
    tool_call: { T: 'ToolCall', name: c.tool, arguments: c.arguments, id: `call_${i}`, metadata: {} },
    tool_response: { T: 'ToolResponse', name: c.tool, content: c.result, id: `call_${i}`, metadata: {} },
  }));
}

/** The visible dialogue as ThinkingBox Text messages (what its user simulator reads). */
export function visibleAsThinkingBox(dialogue: readonly VisibleMessage[]): ThinkingBoxMessage[] {
  return dialogue.map((m) => ({
    T: 'Text',
    role: m.from === 'user' ? 'user' : 'assistant',
    content: m.text,
    metadata: {},
  }));
}

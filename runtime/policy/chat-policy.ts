import { appendAll } from '../../core/arrays.js';
import type {
  AssistantTurn,
  Coercion,
  Conversation,
  ParseFailure,
  ToolSchema,
  Turn,
} from '../../schemas/conversation.js';
import type { ToolCall } from '../../schemas/task.js';
import type { ChatClient, ChatMessage, ChatReplyMessage, ChatTool } from '../clients/chat-client.js';
import { callFailure, interpretCall } from '../interpreter/calls.js';
import { CALL_OPEN } from '../interpreter/qwen-format.js';
import { qwen3Renderer } from '../interpreter/qwen3.js';
import type { PolicyState } from '../../schemas/checkpoint.js';
import { stateOfKind, type AgentPolicy, type AgentStep } from './agent-policy.js';

export function asChatTool(tool: ToolSchema): ChatTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}

/**
 * Call markup the provider returned as text instead of as calls (vLLM's hermes parser does so when a `<tool_call>`
 * block is not valid JSON): the agent meant to call a tool, so it is fed back as a malformed call, read by the same
 * interpreter as our own policy's output, rather than shown to the user as a message.
 */
function unreadCallMarkup(text: string, tools: readonly ToolSchema[]): ParseFailure[] {
  const parsed = qwen3Renderer.parseOutput(text, tools);
  if (parsed.failures.length > 0) return parsed.failures;
  return [
    {
      kind: 'bad_call_shape',
      message: `the reply holds ${CALL_OPEN} markup that the provider did not read as a tool call; call tools through the API's tool calls`,
    },
  ];
}

/**
 * A hosted model over a chat-completions API (evaluation only): the provider renders and parses, so the episode is
 * marked `interpretedBy: 'provider'` and has no token trajectory. Tool calls are still checked and typed by our
 * interpreter, so a malformed call is fed back exactly as for our own policy.
 */
export class ChatAgentPolicy implements AgentPolicy {
  readonly interpretedBy = 'provider' as const;
  /** The provider's own messages, by the index the assistant turn takes in the conversation (tool-call ids included). */
  private readonly replies = new Map<number, ChatReplyMessage>();

  constructor(private readonly client: ChatClient) {}

  async next(conversation: Conversation, options: { signal?: AbortSignal } = {}): Promise<AgentStep> {
    const reply = await this.client.chat(chatMessages(conversation, this.replies), {
      tools: conversation.tools.map(asChatTool),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    this.replies.set(conversation.turns.length, reply.message);
    const failures: ParseFailure[] = [];
    const coercions: Coercion[] = [];
    const turnCalls: ToolCall[] = [];
    const typedCalls: ToolCall[] = [];
    (reply.message.tool_calls ?? []).forEach((toolCall, callIndex) => {
      if (toolCall.type !== 'function') {
        failures.push({
          kind: 'bad_call_shape',
          callIndex,
          message: `tool call ${callIndex + 1} is not a function call`,
        });
        return;
      }
      let args: unknown;
      let interpreted;
      try {
        args = JSON.parse(toolCall.function.arguments || '{}');
        interpreted = interpretCall(toolCall.function.name, args, callIndex, conversation.tools);
      } catch (err) {
        interpreted = callFailure({
          kind: 'bad_json',
          tool: toolCall.function.name,
          callIndex,
          message: `tool call ${callIndex + 1} (${toolCall.function.name}): arguments are not valid JSON (${(err as Error).message})`,
        });
      }
      if (interpreted.call) turnCalls.push(interpreted.typed ?? interpreted.call);
      if (interpreted.typed) typedCalls.push(interpreted.typed);
      appendAll(failures, interpreted.failures);
      appendAll(coercions, interpreted.coercions);
    });
    const text = (reply.message.content ?? '').trim();
    if (turnCalls.length === 0 && failures.length === 0 && text.includes(CALL_OPEN))
      appendAll(failures, unreadCallMarkup(text, conversation.tools));
    const turn: AssistantTurn = {
      role: 'assistant',
      content: text,
      toolCalls: turnCalls,
    };
    if (reply.message.reasoning_content) turn.reasoning = reply.message.reasoning_content.trim();
    return {
      turn,
      calls: failures.length > 0 ? [] : typedCalls,
      failures,
      coercions,
      model: reply.model,
      policyVersion: reply.model,
      finishReason: reply.finishReason === 'length' ? 'length' : 'stop',
      usage: reply.usage,
    };
  }

  async finish(): Promise<null> {
    return null;
  }

  saveState(): PolicyState {
    return { kind: 'chat', replies: [...this.replies].map(([index, message]) => [index, { ...message }]) };
  }

  restoreState(state: PolicyState): void {
    for (const [index, message] of stateOfKind(state, 'chat').replies)
      this.replies.set(index, message as unknown as ChatReplyMessage);
  }
}

/**
 * Chat messages for the conversation, as a chat-completions provider is sent them: its system part(s), then the turns;
 * tool turns answer the preceding assistant message's calls in order. `replies`: the provider's own messages by the
 * index their turn takes (tool-call ids included), sent back as it wrote them.
 */
export function chatMessages(
  conversation: Conversation,
  replies: ReadonlyMap<number, ChatReplyMessage> = new Map(),
): ChatMessage[] {
  const system = conversation.systemParts ?? (conversation.system === '' ? [] : [conversation.system]);
  const messages: ChatMessage[] = system.map((content) => ({ role: 'system', content }));
  let pendingIds: string[] = [];
  let pendingTools: Turn[] = [];
  const flush = () => {
    if (pendingTools.length === 0) return;
    // Feedback on call markup the provider left in the text: no call id to answer, so it goes as a user message.
    if (pendingIds.length === 0 && pendingTools.length === 1) {
      messages.push({ role: 'user', content: pendingTools[0]!.content as string });
      pendingTools = [];
      return;
    }
    if (pendingIds.length === 0 || (pendingTools.length !== pendingIds.length && pendingTools.length !== 1)) {
      throw new Error(
        `chat policy: ${pendingTools.length} tool results follow an assistant message with ${pendingIds.length} calls`,
      );
    }
    // One tool turn for several calls is parse-failure feedback: it answers every call.
    const answers = pendingTools.length === pendingIds.length ? pendingTools : pendingIds.map(() => pendingTools[0]!);
    pendingIds.forEach((id, i) =>
      messages.push({ role: 'tool', tool_call_id: id, content: answers[i]!.content as string }),
    );
    pendingTools = [];
    pendingIds = [];
  };
  conversation.turns.forEach((turn, index) => {
    if (turn.role === 'tool') {
      pendingTools.push(turn);
      return;
    }
    flush();
    if (turn.role === 'user') {
      messages.push({ role: 'user', content: turn.content });
      return;
    }
    const own = replies.get(index);
    const toolCalls =
      own?.tool_calls ??
      turn.toolCalls.map((call, k) => ({
        id: `call_${index}_${k}`,
        type: 'function' as const,
        function: { name: call.tool, arguments: JSON.stringify(call.arguments) },
      }));
    messages.push({
      role: 'assistant',
      content: own ? own.content : turn.content,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    });
    pendingIds = toolCalls.map((call) => call.id);
  });
  flush();
  return messages;
}

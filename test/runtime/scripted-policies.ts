import { NO_USAGE } from '../../runtime/clients/user-simulator.js';
import { qwen3Renderer } from '../../runtime/interpreter/index.js';
import type { AgentPolicy, AgentStep } from '../../runtime/policy/agent-policy.js';
import type { Conversation } from '../../schemas/conversation.js';
import type { ToolCall } from '../../schemas/task.js';

/**
 * A stand-in for a model (test double, named as such): it writes the given model texts in order, which the real
 * interpreter then parses, exactly as it parses sampled completions.
 */
export class ScriptedTextPolicy implements AgentPolicy {
  readonly interpretedBy = 'finalstate' as const;
  private index = 0;
  constructor(private readonly texts: string[]) {}
  async next(conversation: Conversation): Promise<AgentStep> {
    const text = this.texts[Math.min(this.index++, this.texts.length - 1)]!;
    return {
      ...qwen3Renderer.parseOutput(text, conversation.tools),
      model: 'scripted-text',
      policyVersion: 'test',
      finishReason: 'stop',
      usage: NO_USAGE,
    };
  }
  async finish() {
    return null;
  }
}

/**
 * A stand-in for a model whose calls reach the tools unchecked (test double): the calls are handed to the loop as
 * they are, the way any MCP client's calls reach the server, so the SDK's and the tools' own checks answer them. A
 * string step is a closing message; an array is one turn of several calls.
 */
export class ScriptedCallsPolicy implements AgentPolicy {
  readonly interpretedBy = 'finalstate' as const;
  private index = 0;
  constructor(private readonly steps: Array<ToolCall | ToolCall[] | string>) {}
  async next(_conversation: Conversation): Promise<AgentStep> {
    const step = this.steps[Math.min(this.index++, this.steps.length - 1)]!;
    const common = {
      model: 'scripted-calls',
      policyVersion: 'test',
      finishReason: 'stop' as const,
      usage: NO_USAGE,
      failures: [],
      coercions: [],
    };
    if (typeof step === 'string')
      return { ...common, turn: { role: 'assistant', content: step, toolCalls: [] }, calls: [] };
    const calls = Array.isArray(step) ? step : [step];
    return { ...common, turn: { role: 'assistant', content: '', toolCalls: calls }, calls };
  }
  async finish() {
    return null;
  }
}

import type { EpisodeMcpClient } from '../../environment/mcp-client.js';
import type { ToolSchema } from '../../schemas/conversation.js';
import type { ToolResultLike } from '../interpreter/tool-result.js';
import type { ToolSession } from './tool-session.js';

/** A recorded call: what the agent asked and what it got back. */
export interface ToolCallRecord {
  index: number;
  tool: string;
  arguments: Record<string, unknown>;
  isError: boolean;
  result: string;
  ms: number;
}

/**
 * The episode's MCP session as the agent loop sees it. Every call carries its index in the episode, so a resumed
 * attempt that repeats a call whose effect was committed gets the recorded answer instead of a second execution.
 */
export class McpToolSession implements ToolSession {
  readonly calls: ToolCallRecord[] = [];

  constructor(private readonly client: EpisodeMcpClient, private readonly onClose: () => Promise<void>) {}

  /** Continue after the calls a checkpoint recorded: the next call gets index `calls.length`. */
  resumeAfter(calls: readonly ToolCallRecord[]): void {
    if (this.calls.length > 0) throw new Error('resumeAfter() needs a session that made no call yet');
    this.calls.push(...calls.map((c) => ({ ...c, arguments: { ...c.arguments } })));
  }

  async listTools(): Promise<ToolSchema[]> {
    return (await this.client.listTools()).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResultLike> {
    const index = this.calls.length;
    const started = performance.now();
    const result = await this.client.callTool(name, args, { callIndex: index });
    this.calls.push({ index, tool: name, arguments: args, isError: result.isError, result: result.content, ms: performance.now() - started });
    return { isError: result.isError, content: [{ type: 'text', text: result.content }] };
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

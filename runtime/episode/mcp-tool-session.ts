import type { EpisodeMcpClient } from '../../environment/mcp-client.js';
import type { ToolSchema } from '../../schemas/conversation.js';
import type { ToolAnswer, ToolSession } from './tool-session.js';

/** A recorded call: what the agent asked and what it got back. */
export interface ToolCallRecord {
  /** The index it consumed; null when it was refused before running (it had no effect). */
  index: number | null;
  tool: string;
  arguments: Record<string, unknown>;
  isError: boolean;
  result: string;
  ms: number;
}

/**
 * The episode's MCP session as the agent loop sees it. Every call carries its index in the episode, so a resumed
 * attempt that repeats a call whose effect was committed gets the recorded answer instead of a second execution.
 * The executor decides whether a call consumed its index (it ran and is recorded) or not (refused before running,
 * by the SDK's input validation or the executor's own); the answer says which, and only a consumed index moves on.
 */
export class McpToolSession implements ToolSession {
  readonly calls: ToolCallRecord[] = [];
  private nextIndex = 0;

  constructor(
    private readonly client: EpisodeMcpClient,
    private readonly onClose: () => Promise<void>,
  ) {}

  /** Continue after the calls a checkpoint recorded: the next call gets index `calls.length`. */
  resumeAfter(calls: readonly ToolCallRecord[]): void {
    if (this.calls.length > 0) throw new Error('resumeAfter() needs a session that made no call yet');
    this.calls.push(...calls.map((c) => ({ ...c, arguments: { ...c.arguments } })));
    this.nextIndex = calls.reduce((next, c) => (c.index === null ? next : Math.max(next, c.index + 1)), 0);
  }

  async listTools(): Promise<ToolSchema[]> {
    return (await this.client.listTools()).map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    }));
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { budgetMs?: number } = {},
  ): Promise<ToolAnswer> {
    const requested = this.nextIndex;
    const started = performance.now();
    const result = await this.client.callTool(name, args, { callIndex: requested, ...options });
    if (result.callIndex !== undefined && result.callIndex !== requested) {
      throw new Error(`tool server answered call index ${requested} as index ${result.callIndex}`);
    }
    // stopped at the episode's deadline: it ran without effect, and the episode ends on it
    if (result.budgetSpent)
      return { isError: true, content: [{ type: 'text', text: result.content }], budgetSpent: true };
    const index = result.callIndex ?? null;
    if (index !== null) this.nextIndex = index + 1;
    this.calls.push({
      index,
      tool: name,
      arguments: args,
      isError: result.isError,
      result: result.content,
      ms: performance.now() - started,
    });
    return { isError: result.isError, content: [{ type: 'text', text: result.content }] };
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

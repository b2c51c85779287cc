import type { ToolSchema } from '../../schemas/conversation.js';
import type { ToolResultLike } from '../interpreter/tool-result.js';

/**
 * The episode's tools as the agent loop sees them: the domain's MCP session on the episode's own backend (built by
 * the environments layer). A tool's own refusal is a result with `isError`; a broken transport or an unreachable
 * database throws InfrastructureError.
 */
export interface ToolSession {
  listTools(): Promise<ToolSchema[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResultLike>;
  close(): Promise<void>;
}

import type { ToolSchema } from '../../schemas/conversation.js';
import type { ToolResultLike } from '../interpreter/tool-result.js';

/**
 * A tool's answer; `budgetSpent` when the call was stopped because the time it was given ran out (nothing kept);
 * `endsConversation` when the tool ends the conversation once answered (a ThinkingBox end-turn tool);
 * `directResponse`, text forwarded to the conversation as an agent message after the turn's answers (a ThinkingBox
 * tool with a `direct_response` override).
 */
export type ToolAnswer = ToolResultLike & { budgetSpent?: true; endsConversation?: true; directResponse?: string };

/**
 * The episode's tools as the agent loop sees them: the domain's MCP session on the episode's own backend (built by
 * the environments layer). A tool's own refusal is a result with `isError`; a broken transport or an unreachable
 * database throws InfrastructureError. `budgetMs` is what is left of the episode's clock: a call still running then
 * is stopped and answered with `budgetSpent`.
 */
export interface ToolSession {
  listTools(): Promise<ToolSchema[]>;
  callTool(name: string, args: Record<string, unknown>, options?: { budgetMs?: number }): Promise<ToolAnswer>;
  close(): Promise<void>;
}

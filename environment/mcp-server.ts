import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InfrastructureError } from '../core/errors.js';
import type { Profile } from '../schemas/task.js';
import type { z } from 'zod';
import type { ToolDefinition } from './domain.js';
import { ToolCallIndexConflict, ToolCallPastBudget, ToolFault, type EpisodeToolExecutor } from './tool-executor.js';

/** `_meta` keys of our tool results and requests. */
export const META_CALL_INDEX = 'finalstate/callIndex';
export const META_INFRASTRUCTURE_ERROR = 'finalstate/infrastructureError';
export const META_INDEX_CONFLICT = 'finalstate/callIndexConflict';
/** Set on the result of a call whose handler failed with a bug (a ToolFault), so `tasks verify` can report it. */
export const META_TOOL_FAULT = 'finalstate/toolFault';
/** Request: the milliseconds the caller gives the call (what is left of the episode's clock). */
export const META_BUDGET_MS = 'finalstate/budgetMs';
/** Result: the call was stopped when that budget ran out; nothing was kept. */
export const META_BUDGET_SPENT = 'finalstate/budgetSpent';

/** What an agent on this profile is shown of a tool: the `mini` profile's short descriptions, without parameter descriptions. */
export function presentedTool(
  tool: ToolDefinition,
  profile: Profile,
): { description: string; inputSchema: ToolDefinition['input'] } {
  if (profile !== 'mini') return { description: tool.description, inputSchema: tool.input };
  const inputSchema = Object.fromEntries(
    Object.entries(tool.input).map(([key, field]) => [key, (field as z.ZodType).meta({ description: undefined })]),
  );
  return { description: tool.miniDescription ?? tool.description, inputSchema };
}

/**
 * An MCP server exposing one episode's tools (the task profile's tool list), bound to that episode's database
 * through its executor. The domain policy is served as the server's instructions. Agent mistakes (bad arguments,
 * not found, rejections) are `isError` results; an outage is an `isError` result flagged in `_meta`, which
 * EpisodeMcpClient turns back into an InfrastructureError so the runtime retries instead of blaming the agent.
 * `_meta` carries the call index a call consumed, and only when it consumed one: a call the SDK's input validation
 * refuses never reaches the executor, so its result has no index and the caller must not count it. A request's
 * `_meta` may give the call a time budget (META_BUDGET_MS); a call stopped when it runs out says so (META_BUDGET_SPENT).
 */
export function createEpisodeMcpServer(executor: EpisodeToolExecutor): McpServer {
  const { domain, task } = executor.episode;
  const server = new McpServer(
    { name: `finalstate-${domain.name}`, version: domain.version },
    { instructions: domain.policy[task.profile] },
  );
  for (const tool of executor.tools.values()) {
    server.registerTool(
      tool.name,
      { ...presentedTool(tool, task.profile), annotations: { readOnlyHint: tool.readOnly, openWorldHint: false } },
      async (args, extra): Promise<CallToolResult> => {
        const requested = extra._meta?.[META_CALL_INDEX];
        const budget = extra._meta?.[META_BUDGET_MS];
        try {
          const outcome = await executor.call(tool.name, args, {
            ...(typeof requested === 'number' ? { callIndex: requested } : {}),
            ...(typeof budget === 'number' && budget >= 0 ? { budgetMs: budget } : {}),
          });
          const meta = outcome.callIndex === undefined ? undefined : { [META_CALL_INDEX]: outcome.callIndex };
          if (outcome.isError)
            return {
              isError: true,
              content: [{ type: 'text', text: outcome.message }],
              ...(meta ? { _meta: meta } : {}),
            };
          const shown =
            task.profile === 'mini' && tool.miniResult
              ? tool.miniResult(outcome.result, { now: executor.episode.clock })
              : outcome.result;
          return {
            content: [{ type: 'text', text: JSON.stringify(shown) }],
            structuredContent: { result: shown },
            ...(meta ? { _meta: meta } : {}),
          };
        } catch (err) {
          if (err instanceof ToolCallIndexConflict) {
            return {
              isError: true,
              content: [{ type: 'text', text: err.message }],
              _meta: { [META_INDEX_CONFLICT]: err.message },
            };
          }
          if (err instanceof ToolCallPastBudget)
            return {
              isError: true,
              content: [{ type: 'text', text: err.message }],
              _meta: { [META_BUDGET_SPENT]: err.message },
            };
          if (err instanceof ToolFault)
            return {
              isError: true,
              content: [{ type: 'text', text: err.message }],
              _meta: { [META_TOOL_FAULT]: err.message },
            };
          if (!(err instanceof InfrastructureError)) throw err;
          return {
            isError: true,
            content: [
              {
                type: 'text',
                text: 'The tool is temporarily unavailable (infrastructure error); nothing was changed.',
              },
            ],
            _meta: { [META_INFRASTRUCTURE_ERROR]: { component: err.component, message: err.message } },
          };
        }
      },
    );
  }
  return server;
}

import type { z } from 'zod';
import type { ToolDefinition } from '../../environment/domain.js';

/** Type-check a tool against its own input shape, then store it in the domain's untyped tool list. */
export function defineTool<Shape extends z.ZodRawShape>(tool: ToolDefinition<Shape>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

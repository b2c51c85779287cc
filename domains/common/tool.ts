import type { z } from 'zod';
import type { DomainPack, ToolDefinition } from '../../environment/domain.js';

/** Type-check a tool against its own input shape, then store it in the domain's untyped tool list. */
export function defineTool<Shape extends z.ZodRawShape>(tool: ToolDefinition<Shape>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** Type-check a pack (the mini profile is optional); returns it unchanged. */
export function defineDomain(pack: DomainPack): DomainPack {
  return pack;
}

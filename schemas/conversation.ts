import { z } from 'zod';
import { ToolCall } from './task.js';

/** A tool as MCP `listTools` describes it: the interpreter renders these into the system turn. */
export const ToolSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().default(''),
    inputSchema: z.record(z.string(), z.unknown()).describe('JSON Schema of the arguments object (type "object").'),
  })
  .strip();
export type ToolSchema = z.infer<typeof ToolSchema>;

export const UserTurn = z.object({ role: z.literal('user'), content: z.string() }).strict();
export type UserTurn = z.infer<typeof UserTurn>;

/**
 * One agent message. `raw` is the model's output exactly as sampled (token in, token out): when present the renderer
 * writes it verbatim, so the rendered conversation is the text the policy really produced.
 */
export const AssistantTurn = z
  .object({
    role: z.literal('assistant'),
    reasoning: z.string().optional().describe('Text inside <think>…</think>; absent when the model gave none.'),
    content: z.string().describe('Visible text: what the user sees.'),
    toolCalls: z.array(ToolCall).default([]),
    raw: z.string().optional(),
    direct: z
      .literal(true)
      .optional()
      .describe(
        "A tool's direct response: text the environment forwards as an agent message after the tool's answer (ThinkingBox's `direct_response` override), never sampled from the policy.",
      ),
  })
  .strict();
export type AssistantTurn = z.infer<typeof AssistantTurn>;

/** A tool result (or parse-failure feedback) shown to the agent. Errors are conveyed in the text itself. */
export const ToolTurn = z.object({ role: z.literal('tool'), content: z.string() }).strict();
export type ToolTurn = z.infer<typeof ToolTurn>;

export const Turn = z.discriminatedUnion('role', [UserTurn, AssistantTurn, ToolTurn]);
export type Turn = z.infer<typeof Turn>;

/** What the interpreter renders: the domain policy, the tools offered and the turns so far. */
export const Conversation = z
  .object({
    system: z.string(),
    systemParts: z
      .array(z.string())
      .optional()
      .describe(
        'The system text as the separate system messages an environment shows (ThinkingBox: its agent template, then the bot instructions); `system` is their join with a blank line, which a token renderer writes.',
      ),
    tools: z.array(ToolSchema),
    turns: z.array(Turn),
  })
  .strict();
export type Conversation = z.infer<typeof Conversation>;

export const ParseFailureKind = z.enum([
  'bad_json',
  'bad_call_shape',
  'unknown_tool',
  'missing_argument',
  'extra_argument',
  'invalid_argument',
  'unclosed_tag',
  'stray_tag',
  'text_after_tool_call',
  'too_many_calls',
  'oversized_call',
]);
export type ParseFailureKind = z.infer<typeof ParseFailureKind>;

/** Why model output could not be executed. Fed back to the agent as a tool error; never an infrastructure error. */
export const ParseFailure = z
  .object({
    kind: ParseFailureKind,
    message: z.string().min(1),
    callIndex: z.number().int().min(0).optional().describe('0-based index of the <tool_call> block concerned.'),
    tool: z.string().optional(),
    path: z.string().optional().describe('Argument path, e.g. "items[0].qty".'),
  })
  .strict();
export type ParseFailure = z.infer<typeof ParseFailure>;

/** A value the interpreter converted to the type the tool's schema asks for (recorded, never silent). */
export const Coercion = z
  .object({
    callIndex: z.number().int().min(0),
    path: z.string(),
    from: z.unknown(),
    to: z.unknown(),
    rule: z.string(),
  })
  .strict();
export type Coercion = z.infer<typeof Coercion>;

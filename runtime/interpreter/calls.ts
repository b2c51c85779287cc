import { describeJsonExcess, exceedsJsonBounds, TOOL_ARGUMENT_BOUNDS } from '../../core/json-bounds.js';
import type { Coercion, ParseFailure, ToolSchema } from '../../schemas/conversation.js';
import type { ToolCall } from '../../schemas/task.js';
import { typeArguments } from './coercion.js';

/** MCP's advice for tool names (1 to 128 characters); a longer name is no tool's, and is not echoed back whole. */
export const MAX_TOOL_NAME_CHARS = 128;

/** One call as written by the model: `call` when it had a name and an arguments object, `typed` when it is executable. */
export interface CallInterpretation {
  call?: ToolCall;
  typed?: ToolCall;
  failures: ParseFailure[];
  coercions: Coercion[];
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function callFailure(failure: ParseFailure): CallInterpretation {
  return { failures: [failure], coercions: [] };
}

/**
 * A call over the bounds (a name longer than MAX_TOOL_NAME_CHARS, arguments over TOOL_ARGUMENT_BOUNDS, counted
 * iteratively): an `oversized_call` failure that keeps nothing of it, so no part of it reaches the turn's calls,
 * the checkpoint, the record or a tool.
 */
function oversized(name: string, args: unknown, callIndex: number): CallInterpretation | undefined {
  const at = `tool call ${callIndex + 1}`;
  if (name.length > MAX_TOOL_NAME_CHARS)
    return callFailure({
      kind: 'oversized_call',
      callIndex,
      message: `${at}: the tool name is ${name.length.toLocaleString('en-US')} characters long; tool names have at most ${MAX_TOOL_NAME_CHARS} characters`,
    });
  const excess = exceedsJsonBounds(args, TOOL_ARGUMENT_BOUNDS);
  if (!excess) return undefined;
  return callFailure({
    kind: 'oversized_call',
    tool: name,
    callIndex,
    message: `${at} (${name}): ${describeJsonExcess(excess, TOOL_ARGUMENT_BOUNDS)}`,
  });
}

/**
 * Check a named call against the tools offered and type its arguments (shared by every chat format and by the
 * provider-interpreted policy). Arguments given as JSON text holding an object are decoded (and recorded).
 */
export function interpretCall(
  name: string,
  rawArguments: unknown,
  callIndex: number,
  tools: readonly ToolSchema[],
): CallInterpretation {
  const coercions: Coercion[] = [];
  let args = rawArguments;
  const tooBig = oversized(name, args, callIndex);
  if (tooBig) return tooBig;
  if (typeof args === 'string') {
    let decoded: unknown;
    try {
      decoded = JSON.parse(args);
    } catch {
      decoded = undefined;
    }
    if (isPlainObject(decoded)) {
      const decodedTooBig = oversized(name, decoded, callIndex);
      if (decodedTooBig) return decodedTooBig;
      coercions.push({ callIndex, path: '', from: args, to: decoded, rule: 'json-text->arguments' });
      args = decoded;
    }
  }
  if (!isPlainObject(args)) {
    return callFailure({
      kind: 'bad_call_shape',
      tool: name,
      callIndex,
      message: `tool call ${callIndex + 1} (${name}): "arguments" must be a JSON object`,
    });
  }
  const call: ToolCall = { tool: name, arguments: args };
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const known = tools.map((t) => t.name).join(', ') || 'none';
    return {
      call,
      failures: [
        { kind: 'unknown_tool', tool: name, callIndex, message: `unknown tool "${name}" (available tools: ${known})` },
      ],
      coercions,
    };
  }
  const typed = typeArguments(args, tool.inputSchema);
  if (typed.problems.length > 0) {
    return {
      call,
      failures: typed.problems.map((p) => ({
        kind: p.kind,
        tool: name,
        callIndex,
        path: p.path,
        message: `${name}: ${p.message}`,
      })),
      coercions,
    };
  }
  for (const c of typed.coercions) coercions.push({ ...c, callIndex });
  return { call, typed: { tool: name, arguments: typed.arguments }, failures: [], coercions };
}

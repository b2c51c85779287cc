import type { Conversation, ToolSchema } from '../../schemas/conversation.js';
import type { ToolCall } from '../../schemas/task.js';
import { callFailure, type CallInterpretation, interpretCall, isPlainObject } from './calls.js';
import { pythonJson } from './python-json.js';
import { content, excerpt, markup, qwenRenderer, type QwenFormat } from './qwen-format.js';
import type { RenderedPart } from './renderer.js';

/**
 * The Hermes-JSON tool format as Qwen2.5's and Qwen3's own chat templates write it: tools as JSON lines in a
 * <tools> block of the system turn, each call a JSON object {"name", "arguments"} in a <tool_call> block.
 */

const TOOLS_HEADER =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const TOOLS_FOOTER =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';

function renderTool(tool: ToolSchema): string {
  return pythonJson({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  });
}

function systemWithTools(conversation: Conversation): RenderedPart[] {
  const policy = conversation.system === '' ? [] : [content(conversation.system), markup('\n\n')];
  const tools = conversation.tools.flatMap((tool) => [markup('\n'), content(renderTool(tool))]);
  return [...policy, markup(TOOLS_HEADER), ...tools, markup(TOOLS_FOOTER)];
}

function renderCall(call: ToolCall): RenderedPart[] {
  return [
    markup('<tool_call>\n{"name": '),
    content(JSON.stringify(call.tool)),
    markup(', "arguments": '),
    content(pythonJson(call.arguments)),
    markup('}\n</tool_call>'),
  ];
}

const CALL_SHAPE = 'a tool call must be a JSON object {"name": <tool name>, "arguments": {…}}';

function parseCallBody(body: string, callIndex: number, tools: readonly ToolSchema[]): CallInterpretation {
  let value: unknown;
  try {
    value = JSON.parse(body.trim());
  } catch (err) {
    return callFailure({
      kind: 'bad_json',
      callIndex,
      message: `tool call ${callIndex + 1} is not valid JSON (${(err as Error).message}): ${excerpt(body)}`,
    });
  }
  if (!isPlainObject(value) || typeof value.name !== 'string' || value.name === '') {
    return callFailure({ kind: 'bad_call_shape', callIndex, message: `tool call ${callIndex + 1}: ${CALL_SHAPE}` });
  }
  const name = value.name;
  const extraKeys = Object.keys(value).filter((key) => key !== 'name' && key !== 'arguments');
  if (extraKeys.length > 0) {
    return callFailure({
      kind: 'bad_call_shape',
      tool: name,
      callIndex,
      message: `tool call ${callIndex + 1} (${name}): unexpected key(s) ${extraKeys.join(', ')}; ${CALL_SHAPE}`,
    });
  }
  return interpretCall(name, value.arguments, callIndex, tools);
}

function parseSystem(body: string): Pick<Conversation, 'system' | 'tools'> {
  const headerAt = body.indexOf(TOOLS_HEADER);
  if (headerAt === -1) return { system: body, tools: [] };
  const system = headerAt === 0 ? '' : body.slice(0, headerAt).replace(/\n\n$/, '');
  const listEnd = body.indexOf(TOOLS_FOOTER, headerAt);
  if (listEnd === -1) throw new Error('qwen3: system turn has a <tools> block without its closing instructions');
  const lines = body
    .slice(headerAt + TOOLS_HEADER.length, listEnd)
    .split('\n')
    .filter((line) => line !== '');
  const tools = lines.map((line) => {
    const fn = (
      JSON.parse(line) as { function: { name: string; description?: string; parameters: Record<string, unknown> } }
    ).function;
    return { name: fn.name, description: fn.description ?? '', inputSchema: fn.parameters };
  });
  return { system, tools };
}

export const hermesJsonFormat: QwenFormat = {
  family: 'qwen3',
  systemWithTools,
  parseSystem,
  renderCall,
  textBeforeCalls: '\n',
  response: { before: '\n<tool_response>\n', after: '\n</tool_response>', end: '' },
  parseCallBody,
};

export const qwen3Renderer = qwenRenderer(hermesJsonFormat);

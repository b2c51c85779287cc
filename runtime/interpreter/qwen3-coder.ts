import type { Conversation, ToolSchema } from '../../schemas/conversation.js';
import type { ToolCall } from '../../schemas/task.js';
import { callFailure, type CallInterpretation, interpretCall, isPlainObject } from './calls.js';
import { pythonJson, pythonStr } from './python-json.js';
import { CALL_CLOSE, content, excerpt, markup, qwenRenderer, type QwenFormat } from './qwen-format.js';
import type { RenderedPart } from './renderer.js';

/**
 * The XML tool format of Qwen3-Coder (and Qwen3.5+): tools as <function> blocks with one <parameter> block per
 * argument in the system turn, each call `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…
 * </function>\n</tool_call>`, written as Qwen3-Coder's own chat template writes them: values are text (Jinja's
 * `string` filter: `True`, `None`, `1e-07`), objects and arrays JSON; results in <tool_response> blocks of one user
 * turn, each followed by a newline.
 */

const DEFAULT_SYSTEM = 'You are Qwen, a helpful AI assistant that can interact with a computer to solve tasks.';
const TOOLS_HEADER = '\n\n# Tools\n\nYou have access to the following tools:\n\n<tools>';
const TOOLS_FOOTER =
  '\n</tools>\n\nIf you choose to call a tool ONLY reply in the following format with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\nvalue_2\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: the tool calling block MUST begin with an opening <tool_call> tag and end with a closing </tool_call> tag.\n- Required parameters MUST be specified\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>';

const isStructured = (value: unknown): boolean => typeof value === 'object' && value !== null;

/** A value as the template writes it: objects and arrays as JSON, anything else through Jinja's `string`. */
const valueText = (value: unknown): string => (isStructured(value) ? pythonJson(value) : pythonStr(value));

/** `\n<key>value</key>` for every key of `dict` the template does not write itself (its render_extra_keys). */
function extraKeys(dict: unknown, handled: readonly string[]): RenderedPart[] {
  if (!isPlainObject(dict)) return [];
  return Object.entries(dict)
    .filter(([key]) => !handled.includes(key))
    .flatMap(([key, value]) => [markup(`\n<${key}>`), content(valueText(value)), markup(`</${key}>`)]);
}

function renderTool(tool: ToolSchema): RenderedPart[] {
  const parts = [markup('\n<function>\n<name>'), content(tool.name), markup('</name>')];
  parts.push(markup('\n<description>'), content(tool.description.trim()), markup('</description>'));
  parts.push(markup('\n<parameters>'));
  const properties = tool.inputSchema.properties;
  if (isPlainObject(properties)) {
    for (const [name, fields] of Object.entries(properties)) {
      parts.push(markup('\n<parameter>\n<name>'), content(name), markup('</name>'));
      if (isPlainObject(fields)) {
        if (fields.type !== undefined)
          parts.push(markup('\n<type>'), content(pythonStr(fields.type)), markup('</type>'));
        if (fields.description !== undefined)
          parts.push(
            markup('\n<description>'),
            content(pythonStr(fields.description).trim()),
            markup('</description>'),
          );
      }
      parts.push(...extraKeys(fields, ['name', 'type', 'description']), markup('\n</parameter>'));
    }
  }
  parts.push(...extraKeys(tool.inputSchema, ['type', 'properties']), markup('\n</parameters>\n</function>'));
  return parts;
}

function systemWithTools(conversation: Conversation): RenderedPart[] {
  const policy = conversation.system === '' ? markup(DEFAULT_SYSTEM) : content(conversation.system);
  return [policy, markup(TOOLS_HEADER), ...conversation.tools.flatMap(renderTool), markup(TOOLS_FOOTER)];
}

function renderCall(call: ToolCall): RenderedPart[] {
  const parts = [markup('<tool_call>\n<function='), content(call.tool), markup('>\n')];
  for (const [key, value] of Object.entries(call.arguments)) {
    if (value === undefined) continue;
    parts.push(
      markup('<parameter='),
      content(key),
      markup('>\n'),
      content(valueText(value)),
      markup('\n</parameter>\n'),
    );
  }
  parts.push(markup('</function>\n</tool_call>'));
  return parts;
}

const CALL_SHAPE =
  'a tool call must be <function=NAME> with one <parameter=KEY>VALUE</parameter> per argument, closed by </function>';
const FUNCTION_OPEN = /^<function=([^>\n]*)>/;
const PARAMETER_OPEN = /^<parameter=([^>\n]*)>/;
const FUNCTION_CLOSE = '</function>';
// Values are raw text and may spell the markup: a parameter ends at a </parameter> followed by the next parameter or
// the end of the function, and a call at a </tool_call> right after its </function>.
const PARAMETER_END = /\n?<\/parameter>\s*(?=<parameter=|$)/g;
const CALL_END = /<\/function>\s*<\/tool_call>/g;

function callClose(text: string, from: number): number {
  CALL_END.lastIndex = from;
  const match = CALL_END.exec(text);
  // without its closing markup, the first </tool_call> ends the call and the body's parse names what is wrong
  return match ? match.index + match[0].length - CALL_CLOSE.length : text.indexOf(CALL_CLOSE, from);
}
const PYTHON_LITERALS: Record<string, unknown> = { True: true, False: false, None: null };

/** Whether a property schema accepts values of `kind` (no type stated accepts anything: left to the typing). */
function accepts(schema: unknown, kind: 'string' | 'null'): boolean {
  if (!isPlainObject(schema)) return true;
  const { type } = schema;
  if (type === undefined) {
    const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
    return alternatives === undefined || alternatives.some((a) => accepts(a, kind));
  }
  return type === kind || (Array.isArray(type) && type.includes(kind));
}

/**
 * A parameter's text as the value the schema asks for: `None` or `null` is null where null is accepted (the template
 * writes null as None, newer ones as null; a nullable string cannot then be that word); else kept as text where a
 * string is accepted, else read as JSON or as Python's True/False; text that is neither stays text, for the argument
 * typing to convert (`"12"` to 12) or reject with its own message.
 */
function parameterValue(text: string, schema: unknown): unknown {
  if ((text === 'None' || text === 'null') && isPlainObject(schema) && accepts(schema, 'null')) return null;
  if (accepts(schema, 'string')) return text;
  if (Object.hasOwn(PYTHON_LITERALS, text)) return PYTHON_LITERALS[text];
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseCallBody(body: string, callIndex: number, tools: readonly ToolSchema[]): CallInterpretation {
  const shapeFailure = (detail: string, tool?: string) =>
    callFailure({
      kind: 'bad_call_shape',
      callIndex,
      ...(tool === undefined ? {} : { tool }),
      message: `tool call ${callIndex + 1}${tool === undefined ? '' : ` (${tool})`}: ${detail}; ${CALL_SHAPE}`,
    });
  const trimmed = body.trim();
  const open = FUNCTION_OPEN.exec(trimmed);
  if (!open || open[1]!.trim() === '') return shapeFailure(`expected <function=NAME>, got ${excerpt(trimmed)}`);
  const name = open[1]!.trim();
  if (!trimmed.endsWith(FUNCTION_CLOSE)) return shapeFailure(`${FUNCTION_CLOSE} missing at the end`, name);
  const properties = tools.find((t) => t.name === name)?.inputSchema.properties;
  const args: Record<string, unknown> = {};
  let rest = trimmed.slice(open[0].length, trimmed.length - FUNCTION_CLOSE.length);
  for (;;) {
    rest = rest.replace(/^\s+/, '');
    if (rest === '') break;
    const parameter = PARAMETER_OPEN.exec(rest);
    if (!parameter) return shapeFailure(`unexpected text ${excerpt(rest)}`, name);
    const key = parameter[1]!.trim();
    PARAMETER_END.lastIndex = parameter[0].length;
    const close = PARAMETER_END.exec(rest);
    if (!close) return shapeFailure(`<parameter=${key}> is never closed with </parameter>`, name);
    if (Object.hasOwn(args, key)) return shapeFailure(`parameter ${JSON.stringify(key)} is given twice`, name);
    const text = rest.slice(parameter[0].length, close.index).replace(/^\n/, '');
    const schema = isPlainObject(properties) && Object.hasOwn(properties, key) ? properties[key] : undefined;
    Object.defineProperty(args, key, { value: parameterValue(text, schema), enumerable: true, writable: true });
    rest = rest.slice(close.index + close[0].length);
  }
  return interpretCall(name, args, callIndex, tools);
}

function parseSystem(body: string): Pick<Conversation, 'system' | 'tools'> {
  if (body.includes(TOOLS_HEADER))
    throw new Error('qwen3-coder: a tool list rendered as XML cannot be read back into JSON Schemas');
  return { system: body, tools: [] };
}

export const qwenXmlFormat: QwenFormat = {
  family: 'qwen3-coder',
  systemWithTools,
  parseSystem,
  renderCall,
  textBeforeCalls: '\n\n',
  response: { before: '\n<tool_response>\n', after: '\n</tool_response>', end: '\n' },
  callClose,
  parseCallBody,
};

export const qwen3CoderRenderer = qwenRenderer(qwenXmlFormat);

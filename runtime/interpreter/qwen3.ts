import type {
  AssistantTurn,
  Coercion,
  Conversation,
  ParseFailure,
  ToolSchema,
  Turn,
} from '../../schemas/conversation.js';
import type { ToolCall } from '../../schemas/task.js';
import { callFailure, type CallInterpretation, interpretCall, isPlainObject } from './calls.js';
import { pythonJson } from './python-json.js';
import { joinParts, type ChatRenderer, type ParsedOutput, type RenderedPart } from './renderer.js';

/**
 * The Qwen3 / Hermes chat format, as Qwen's own chat template writes it: ChatML turns, tools as JSON lines in a
 * <tools> block of the system turn, calls as JSON in <tool_call> blocks, results in <tool_response> blocks of a user
 * turn (consecutive results share one turn), optional <think> reasoning. One deliberate difference: reasoning of
 * earlier turns is kept, because token-in/token-out trajectories never rewrite history.
 */

const IM_START = '<|im_start|>';
const IM_END = '<|im_end|>';
const END_OF_TEXT = '<|endoftext|>';
const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';
const CALL_OPEN = '<tool_call>';
const CALL_CLOSE = '</tool_call>';
const RESPONSE_OPEN = '<tool_response>';
const RESPONSE_CLOSE = '</tool_response>';

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

const markup = (text: string): RenderedPart => ({ text, kind: 'markup' });
const content = (text: string): RenderedPart => ({ text, kind: 'content' });

function renderSystem(conversation: Conversation): RenderedPart[] {
  if (conversation.tools.length === 0)
    return conversation.system === ''
      ? []
      : [markup(`${IM_START}system\n`), content(conversation.system), markup(`${IM_END}\n`)];
  const policy = conversation.system === '' ? [] : [content(conversation.system), markup('\n\n')];
  const tools = conversation.tools.flatMap((tool) => [markup('\n'), content(renderTool(tool))]);
  return [
    markup(`${IM_START}system\n`),
    ...policy,
    markup(TOOLS_HEADER),
    ...tools,
    markup(`${TOOLS_FOOTER}${IM_END}\n`),
  ];
}

function renderCall(call: ToolCall): RenderedPart[] {
  return [
    markup(`${CALL_OPEN}\n{"name": `),
    content(JSON.stringify(call.tool)),
    markup(', "arguments": '),
    content(pythonJson(call.arguments)),
    markup(`}\n${CALL_CLOSE}`),
  ];
}

/** The canonical parts of an assistant turn (what the model is trained to write). */
function renderAssistantBody(turn: AssistantTurn): RenderedPart[] {
  const visible = turn.content.trim();
  const body =
    turn.reasoning === undefined
      ? []
      : [markup(`${THINK_OPEN}\n`), content(turn.reasoning.trim()), markup(`\n${THINK_CLOSE}\n\n`)];
  body.push(content(visible));
  turn.toolCalls.forEach((call, index) => {
    if (index > 0 || visible !== '') body.push(markup('\n'));
    body.push(...renderCall(call));
  });
  return body;
}

/** The model's own text (`raw`, as sampled) is markup: its tags are the tags it wrote. */
function renderAssistant(turn: AssistantTurn): RenderedPart[] {
  if (turn.raw === undefined)
    return [markup(`${IM_START}assistant\n`), ...renderAssistantBody(turn), markup(`${IM_END}\n`)];
  return [markup(`${IM_START}assistant\n${turn.raw}${turn.raw.endsWith(IM_END) ? '' : IM_END}\n`)];
}

function renderTurns(turns: readonly Turn[]): RenderedPart[] {
  const out: RenderedPart[] = [];
  turns.forEach((turn, index) => {
    if (turn.role === 'user') out.push(markup(`${IM_START}user\n`), content(turn.content), markup(`${IM_END}\n`));
    else if (turn.role === 'assistant') out.push(...renderAssistant(turn));
    else {
      const open = turns[index - 1]?.role !== 'tool' ? `${IM_START}user` : '';
      const close = turns[index + 1]?.role !== 'tool' ? `${IM_END}\n` : '';
      out.push(markup(`${open}\n${RESPONSE_OPEN}\n`), content(turn.content), markup(`\n${RESPONSE_CLOSE}${close}`));
    }
  });
  return out;
}

const renderParts = (conversation: Conversation): RenderedPart[] =>
  [...renderSystem(conversation), ...renderTurns(conversation.turns)].filter((p) => p.text !== '');

function excerpt(text: string, max = 60): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

const CALL_SHAPE = 'a tool call must be a JSON object {"name": <tool name>, "arguments": {…}}';

function parseCall(body: string, callIndex: number, tools: readonly ToolSchema[]): CallInterpretation {
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

function stripEndMarkers(text: string): string {
  let body = text;
  for (;;) {
    const marker = [IM_END, END_OF_TEXT].find((m) => body.endsWith(m));
    if (!marker) return body;
    body = body.slice(0, -marker.length);
  }
}

function parseOutput(text: string, tools: readonly ToolSchema[]): ParsedOutput {
  const failures: ParseFailure[] = [];
  const body = stripEndMarkers(text);
  for (const marker of [IM_START, IM_END, END_OF_TEXT]) {
    if (body.includes(marker)) failures.push({ kind: 'stray_tag', message: `unexpected ${marker} inside the message` });
  }
  let reasoning: string | undefined;
  let rest = body;
  const thinkOpen = body.indexOf(THINK_OPEN);
  if (thinkOpen !== -1 && body.slice(0, thinkOpen).trim() === '') {
    const thinkClose = body.indexOf(THINK_CLOSE, thinkOpen);
    if (thinkClose === -1) {
      failures.push({ kind: 'unclosed_tag', message: `${THINK_OPEN} is never closed with ${THINK_CLOSE}` });
      reasoning = body.slice(thinkOpen + THINK_OPEN.length).trim();
      rest = '';
    } else {
      reasoning = body.slice(thinkOpen + THINK_OPEN.length, thinkClose).trim();
      rest = body.slice(thinkClose + THINK_CLOSE.length);
    }
  }
  for (const tag of [THINK_OPEN, THINK_CLOSE]) {
    if (rest.includes(tag))
      failures.push({ kind: 'stray_tag', message: `${tag} may only appear once, at the start of the message` });
  }

  const firstCall = rest.indexOf(CALL_OPEN);
  const content = (firstCall === -1 ? rest : rest.slice(0, firstCall)).trim();
  if (content.includes(CALL_CLOSE))
    failures.push({ kind: 'stray_tag', message: `${CALL_CLOSE} without a matching ${CALL_OPEN}` });

  const turnCalls: ToolCall[] = [];
  const typedCalls: ToolCall[] = [];
  const coercions: Coercion[] = [];
  let position = firstCall;
  for (let callIndex = 0; position !== -1; callIndex++) {
    const bodyStart = position + CALL_OPEN.length;
    const close = rest.indexOf(CALL_CLOSE, bodyStart);
    const nextOpen = rest.indexOf(CALL_OPEN, bodyStart);
    if (close === -1 || (nextOpen !== -1 && nextOpen < close)) {
      failures.push({
        kind: 'unclosed_tag',
        callIndex,
        message: `tool call ${callIndex + 1}: ${CALL_OPEN} is never closed with ${CALL_CLOSE}`,
      });
      break;
    }
    const parsed = parseCall(rest.slice(bodyStart, close), callIndex, tools);
    if (parsed.call) turnCalls.push(parsed.typed ?? parsed.call);
    if (parsed.typed) typedCalls.push(parsed.typed);
    failures.push(...parsed.failures);
    coercions.push(...parsed.coercions);
    const after = close + CALL_CLOSE.length;
    position = rest.indexOf(CALL_OPEN, after);
    const between = position === -1 ? rest.slice(after) : rest.slice(after, position);
    if (between.trim() !== '') {
      failures.push({
        kind: 'text_after_tool_call',
        callIndex,
        message: `text after tool call ${callIndex + 1} is not allowed: ${excerpt(between)}`,
      });
    }
  }
  const turn: AssistantTurn = { role: 'assistant', content, toolCalls: turnCalls, raw: text };
  if (reasoning !== undefined) turn.reasoning = reasoning;
  return { turn, calls: failures.length > 0 ? [] : typedCalls, failures, coercions };
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

function parseConversation(text: string): Conversation {
  const blocks = text.split(IM_START);
  if (blocks[0] !== '') throw new Error(`qwen3: text before the first ${IM_START}: ${excerpt(blocks[0] ?? '')}`);
  let header: Pick<Conversation, 'system' | 'tools'> = { system: '', tools: [] };
  const turns: Turn[] = [];
  blocks.slice(1).forEach((block, index) => {
    if (!block.endsWith(`${IM_END}\n`)) throw new Error(`qwen3: turn ${index + 1} is not closed with ${IM_END}`);
    const inner = block.slice(0, -(IM_END.length + 1));
    if (inner.startsWith(`user\n${RESPONSE_OPEN}\n`)) {
      for (const part of inner.slice('user'.length).split(`\n${RESPONSE_CLOSE}`).slice(0, -1)) {
        turns.push({ role: 'tool', content: part.slice(`\n${RESPONSE_OPEN}\n`.length) });
      }
      return;
    }
    const newline = inner.indexOf('\n');
    const role = inner.slice(0, newline);
    const body = inner.slice(newline + 1);
    if (role === 'system' && index === 0) header = parseSystem(body);
    else if (role === 'user') turns.push({ role: 'user', content: body });
    else if (role === 'assistant') {
      const { raw: _raw, ...turn } = parseOutput(body, header.tools).turn;
      turns.push(turn);
    } else throw new Error(`qwen3: unexpected role ${JSON.stringify(role)} in turn ${index + 1}`);
  });
  return { ...header, turns };
}

export const qwen3Renderer: ChatRenderer = {
  family: 'qwen3',
  generationPrompt: `${IM_START}assistant\n`,
  endOfTurnMarkers: [IM_END, END_OF_TEXT],
  renderConversation: (conversation) => joinParts(renderParts(conversation)),
  renderParts,
  // ChatML markers and every other <|…|> token of the Qwen vocabulary, and the tags Qwen adds as tokens
  controlTokens: /<\|[^\s<>|]{1,64}\|>|<\/?(?:think|tool_call|tool_response)>/,
  parseOutput,
  parseConversation,
};

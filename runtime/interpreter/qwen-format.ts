import type {
  AssistantTurn,
  Coercion,
  Conversation,
  ParseFailure,
  ToolSchema,
  Turn,
} from '../../schemas/conversation.js';
import type { ToolCall } from '../../schemas/task.js';
import type { CallInterpretation } from './calls.js';
import { joinParts, type ChatRenderer, type ParsedOutput, type PlainMessage, type RenderedPart } from './renderer.js';

/**
 * What the Qwen chat formats share: ChatML turns (`<|im_start|>role\n…<|im_end|>\n`), the tools in the system turn,
 * calls in `<tool_call>` blocks of the assistant turn, results in `<tool_response>` blocks of one user turn, optional
 * `<think>` reasoning. A format (`QwenFormat`) says how tools, calls and results are written and how a call body is
 * read; `qwenRenderer` builds the renderer and parser from it. Reasoning of earlier turns is kept (Qwen's own
 * templates drop it), because token-in/token-out trajectories never rewrite history.
 */

export const IM_START = '<|im_start|>';
export const IM_END = '<|im_end|>';
export const END_OF_TEXT = '<|endoftext|>';
const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';
export const CALL_OPEN = '<tool_call>';
export const CALL_CLOSE = '</tool_call>';
export const RESPONSE_OPEN = '<tool_response>';
export const RESPONSE_CLOSE = '</tool_response>';

export const markup = (text: string): RenderedPart => ({ text, kind: 'markup' });
export const content = (text: string): RenderedPart => ({ text, kind: 'content' });

export interface QwenFormat {
  family: string;
  /** The system turn's body when tools are offered (policy and tool list), without the turn markers. */
  systemWithTools(conversation: Conversation): RenderedPart[];
  /** Recover policy and tools from a system body (the inverse of systemWithTools). */
  parseSystem(body: string): Pick<Conversation, 'system' | 'tools'>;
  /** One call, `<tool_call>` to `</tool_call>`. */
  renderCall(call: ToolCall): RenderedPart[];
  /** What separates the visible text from the first call (both present). */
  textBeforeCalls: string;
  /**
   * Tool results: consecutive results share one user turn, `<|im_start|>user` + (before + result + after) per result
   * + end + `<|im_end|>\n`.
   */
  response: { before: string; after: string; end: string };
  /**
   * Where the `</tool_call>` that closes the call opened before `from` starts (-1: none). Default: the first one; a
   * format whose values are raw text finds the one after its own closing markup, so a value may spell the tag.
   */
  callClose?(text: string, from: number): number;
  /** Read one call body (the text between `<tool_call>` and `</tool_call>`). */
  parseCallBody(body: string, callIndex: number, tools: readonly ToolSchema[]): CallInterpretation;
}

function renderSystem(format: QwenFormat, conversation: Conversation): RenderedPart[] {
  if (conversation.tools.length === 0)
    return conversation.system === ''
      ? []
      : [markup(`${IM_START}system\n`), content(conversation.system), markup(`${IM_END}\n`)];
  return [markup(`${IM_START}system\n`), ...format.systemWithTools(conversation), markup(`${IM_END}\n`)];
}

/** The canonical parts of an assistant turn (what the model is trained to write). */
function renderAssistantBody(format: QwenFormat, turn: AssistantTurn): RenderedPart[] {
  const visible = turn.content.trim();
  const body =
    turn.reasoning === undefined
      ? []
      : [markup(`${THINK_OPEN}\n`), content(turn.reasoning.trim()), markup(`\n${THINK_CLOSE}\n\n`)];
  body.push(content(visible));
  turn.toolCalls.forEach((call, index) => {
    if (index > 0) body.push(markup('\n'));
    else if (visible !== '') body.push(markup(format.textBeforeCalls));
    body.push(...format.renderCall(call));
  });
  return body;
}

/** The model's own text (`raw`, as sampled) is markup: its tags are the tags it wrote. */
function renderAssistant(format: QwenFormat, turn: AssistantTurn): RenderedPart[] {
  if (turn.raw === undefined)
    return [markup(`${IM_START}assistant\n`), ...renderAssistantBody(format, turn), markup(`${IM_END}\n`)];
  return [markup(`${IM_START}assistant\n${turn.raw}${turn.raw.endsWith(IM_END) ? '' : IM_END}\n`)];
}

function renderTurns(format: QwenFormat, turns: readonly Turn[]): RenderedPart[] {
  const out: RenderedPart[] = [];
  const { before, after, end } = format.response;
  turns.forEach((turn, index) => {
    if (turn.role === 'user') out.push(markup(`${IM_START}user\n`), content(turn.content), markup(`${IM_END}\n`));
    else if (turn.role === 'assistant') out.push(...renderAssistant(format, turn));
    else {
      const open = turns[index - 1]?.role !== 'tool' ? `${IM_START}user` : '';
      const close = turns[index + 1]?.role !== 'tool' ? `${end}${IM_END}\n` : '';
      out.push(markup(`${open}${before}`), content(turn.content), markup(`${after}${close}`));
    }
  });
  return out;
}

export function excerpt(text: string, max = 60): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

function stripEndMarkers(text: string): string {
  let body = text;
  for (;;) {
    const marker = [IM_END, END_OF_TEXT].find((m) => body.endsWith(m));
    if (!marker) return body;
    body = body.slice(0, -marker.length);
  }
}

function parseOutput(format: QwenFormat, text: string, tools: readonly ToolSchema[]): ParsedOutput {
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
  const visible = (firstCall === -1 ? rest : rest.slice(0, firstCall)).trim();
  if (visible.includes(CALL_CLOSE))
    failures.push({ kind: 'stray_tag', message: `${CALL_CLOSE} without a matching ${CALL_OPEN}` });

  const turnCalls: ToolCall[] = [];
  const typedCalls: ToolCall[] = [];
  const coercions: Coercion[] = [];
  let position = firstCall;
  for (let callIndex = 0; position !== -1; callIndex++) {
    const bodyStart = position + CALL_OPEN.length;
    const close = format.callClose ? format.callClose(rest, bodyStart) : rest.indexOf(CALL_CLOSE, bodyStart);
    const nextOpen = rest.indexOf(CALL_OPEN, bodyStart);
    if (close === -1 || (nextOpen !== -1 && nextOpen < close)) {
      failures.push({
        kind: 'unclosed_tag',
        callIndex,
        message: `tool call ${callIndex + 1}: ${CALL_OPEN} is never closed with ${CALL_CLOSE}`,
      });
      break;
    }
    const parsed = format.parseCallBody(rest.slice(bodyStart, close), callIndex, tools);
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
  const turn: AssistantTurn = { role: 'assistant', content: visible, toolCalls: turnCalls, raw: text };
  if (reasoning !== undefined) turn.reasoning = reasoning;
  return { turn, calls: failures.length > 0 ? [] : typedCalls, failures, coercions };
}

function parseConversation(format: QwenFormat, text: string): Conversation {
  const { family } = format;
  const blocks = text.split(IM_START);
  if (blocks[0] !== '') throw new Error(`${family}: text before the first ${IM_START}: ${excerpt(blocks[0] ?? '')}`);
  let header: Pick<Conversation, 'system' | 'tools'> = { system: '', tools: [] };
  const turns: Turn[] = [];
  const { before, after, end } = format.response;
  blocks.slice(1).forEach((block, index) => {
    if (!block.endsWith(`${IM_END}\n`)) throw new Error(`${family}: turn ${index + 1} is not closed with ${IM_END}`);
    const inner = block.slice(0, -(IM_END.length + 1));
    if (inner.startsWith(`user${before}`) && inner.endsWith(`${after}${end}`)) {
      const results = inner.slice('user'.length, inner.length - end.length);
      for (const part of results.split(after).slice(0, -1))
        turns.push({ role: 'tool', content: part.slice(before.length) });
      return;
    }
    const newline = inner.indexOf('\n');
    const role = inner.slice(0, newline);
    const body = inner.slice(newline + 1);
    if (role === 'system' && index === 0) header = format.parseSystem(body);
    else if (role === 'user') turns.push({ role: 'user', content: body });
    else if (role === 'assistant') {
      const { raw: _raw, ...turn } = parseOutput(format, body, header.tools).turn;
      turns.push(turn);
    } else throw new Error(`${family}: unexpected role ${JSON.stringify(role)} in turn ${index + 1}`);
  });
  return { ...header, turns };
}

/** The ChatML turns of a rendering as plain messages (content between `<|im_start|>role\n` and `<|im_end|>\n`). */
function chatmlMessages(family: string, text: string): PlainMessage[] {
  const messages = text
    .split(IM_START)
    .slice(1)
    .map((block) => {
      const newline = block.indexOf('\n');
      return {
        role: block.slice(0, newline) as PlainMessage['role'],
        content: block.slice(newline + 1, -`${IM_END}\n`.length),
      };
    });
  const again = messages.map((m) => `${IM_START}${m.role}\n${m.content}${IM_END}\n`).join('');
  if (again !== text || messages.some((m) => !['system', 'user', 'assistant'].includes(m.role)))
    throw new Error(`${family}: the rendering does not split into ChatML turns (does a message spell ${IM_START}?)`);
  return messages;
}

/** The renderer and parser of a Qwen chat format. */
export function qwenRenderer(format: QwenFormat): ChatRenderer {
  const renderParts = (conversation: Conversation): RenderedPart[] =>
    [...renderSystem(format, conversation), ...renderTurns(format, conversation.turns)].filter((p) => p.text !== '');
  return {
    family: format.family,
    generationPrompt: `${IM_START}assistant\n`,
    endOfTurnMarkers: [IM_END, END_OF_TEXT],
    renderConversation: (conversation) => joinParts(renderParts(conversation)),
    renderParts,
    // ChatML markers and every other <|…|> token of the Qwen vocabulary, and the tags Qwen adds as tokens
    controlTokens: /<\|[^\s<>|]{1,64}\|>|<\/?(?:think|tool_call|tool_response)>/,
    parseOutput: (text, tools) => parseOutput(format, text, tools),
    plainMessages: (conversation) => chatmlMessages(format.family, joinParts(renderParts(conversation))),
    parseConversation: (text) => parseConversation(format, text),
  };
}

import type { Conversation } from '../../schemas/conversation.js';
import type { RubricVerdict, TokenUsage } from '../../schemas/runtime.js';
import type { Rubric } from '../../schemas/task.js';
import type { ChatClient } from '../clients/chat-client.js';
import { pythonJson } from '../interpreter/python-json.js';
import type { RubricJudge } from './evaluate.js';

/** The transcript the judge reads: visible messages, tool calls and results; never the agent's reasoning. */
export function judgeTranscript(conversation: Conversation): string {
  const lines: string[] = [];
  for (const turn of conversation.turns) {
    if (turn.role === 'user') lines.push(`User: ${turn.content}`);
    else if (turn.role === 'tool') lines.push(`Tool result: ${turn.content}`);
    else {
      if (turn.content.trim() !== '') lines.push(`Agent: ${turn.content.trim()}`);
      for (const call of turn.toolCalls) lines.push(`Agent called ${call.tool} ${pythonJson(call.arguments)}`);
    }
  }
  return lines.join('\n');
}

export const JUDGE_INSTRUCTIONS =
  'You grade one customer-support conversation against one yes/no question. Judge only from the transcript. ' +
  'Explain your reasoning in a few sentences, then end with a final line that is exactly "ANSWER: YES" or "ANSWER: NO".';

const ANSWER_LINE = /^[\s*_`>]*answer\s*:\s*[*_`]*\s*(yes|no)\b[\s.*_`]*$/i;

/**
 * The judge's parse rule: the LAST line of the form "ANSWER: YES" / "ANSWER: NO" (any case, markdown emphasis
 * allowed) decides; the text above it is the motivation. Without such a line the answer is "unparsed", which fails
 * the rubric (an unreadable judgement never passes).
 */
export function parseJudgeAnswer(text: string): { answer: 'yes' | 'no' | 'unparsed'; motivation: string } {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = ANSWER_LINE.exec(lines[i]!);
    if (match)
      return { answer: match[1]!.toLowerCase() as 'yes' | 'no', motivation: lines.slice(0, i).join('\n').trim() };
  }
  return { answer: 'unparsed', motivation: text.trim() };
}

/** Yes/no rubrics over an OpenAI-compatible endpoint, at temperature 0 with a fixed seed. */
export class LlmJudge implements RubricJudge {
  constructor(
    private readonly client: ChatClient,
    private readonly seed: number,
  ) {}

  async judge(
    rubric: Extract<Rubric, { kind: 'judge' }>,
    index: number,
    conversation: Conversation,
  ): Promise<{ verdict: RubricVerdict; usage: TokenUsage; model: string }> {
    const reply = await this.client.chat(
      [
        { role: 'system', content: JUDGE_INSTRUCTIONS },
        {
          role: 'user',
          content: `Transcript:\n<transcript>\n${judgeTranscript(conversation)}\n</transcript>\n\nQuestion: ${rubric.question}`,
        },
      ],
      { temperature: 0, seed: this.seed },
    );
    const { answer, motivation } = parseJudgeAnswer(reply.message.content ?? '');
    const detail =
      answer === 'unparsed'
        ? 'the judge gave no "ANSWER: YES|NO" line: counted as failed'
        : `the judge answered ${answer}`;
    return {
      verdict: { rubric: index, kind: 'judge', passed: answer === 'yes', answer, motivation, detail },
      usage: reply.usage,
      model: reply.model,
    };
  }
}

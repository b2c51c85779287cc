import type { EpisodeRecord } from '../../schemas/episode.js';
import { printable } from './audit/printable.js';

/**
 * A readable conversation: reasoning, tool calls, results and user turns, then the grading diff and the reward
 * (what `finalstate run` prints; control characters the model wrote are escaped).
 */
export function formatTranscript(record: EpisodeRecord): string {
  const lines: string[] = [];
  const indent = (text: string) =>
    text
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
  for (const turn of record.transcript.turns) {
    if (turn.role === 'user') lines.push(`[user]\n${indent(turn.content)}`);
    else if (turn.role === 'tool') lines.push(`[tool result]\n${indent(turn.content)}`);
    else {
      if (turn.reasoning?.trim()) lines.push(`[agent thinks]\n${indent(turn.reasoning.trim())}`);
      if (turn.content.trim()) lines.push(`[agent]\n${indent(turn.content.trim())}`);
      for (const call of turn.toolCalls) lines.push(`[agent calls] ${call.tool}(${JSON.stringify(call.arguments)})`);
      if (!turn.content.trim() && turn.toolCalls.length === 0 && turn.raw)
        lines.push(`[agent, unparsed]\n${indent(turn.raw)}`);
    }
  }
  const { outcome, grade } = record;
  lines.push('', `finish: ${outcome.finishReason}`);
  if (grade.diff.length === 0) lines.push('final state: matches the expected state');
  else {
    lines.push(`final state: ${grade.diff.length} difference(s)`);
    for (const d of grade.diff) {
      const key = JSON.stringify(d.key);
      if (d.kind === 'changed_value')
        lines.push(
          `  changed_value ${d.table} ${key} ${d.column}: expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.actual)}`,
        );
      else lines.push(`  ${d.kind} ${d.table} ${key}`);
    }
  }
  for (const a of grade.assertions)
    if (!a.pass) lines.push(`assertion failed: ${a.description}${a.error ? ` (${a.error})` : ''}`);
  for (const v of record.rubricVerdicts) lines.push(`rubric ${v.passed ? 'passed' : 'FAILED'}: ${v.detail}`);
  if (record.unjudgedRubrics)
    lines.push(`${record.unjudgedRubrics} judge rubric(s) not evaluated: no judge configured`);
  lines.push(`reward: ${outcome.reward}`);
  return printable(lines.join('\n'));
}

import { renderText } from '../../../stats/tables/table.js';
import type { EpisodeView } from './episode-view.js';
import { printable } from './printable.js';

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');

/** Cut long texts (the system prompt, big tool results) for the terminal; `--json` and the HTML page keep them whole. */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** What `finalstate episode show ID` prints. */
export function renderEpisodeText(view: EpisodeView, options: { full?: boolean } = {}): string {
  const max = options.full ? Infinity : 600;
  const width = Math.max(...view.facts.map(([label]) => label.length));
  const out = [
    `episode ${view.episodeId}`,
    `  ${view.summary}`,
    '',
    ...view.facts.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    '',
    'conversation',
  ];
  for (const turn of view.conversation) {
    out.push(`  [${turn.label}]`);
    if (turn.reasoning) out.push(indent(`<think> ${clip(turn.reasoning, max)}`));
    if (turn.text) out.push(indent(clip(turn.text, turn.role === 'system' ? Math.min(max, 200) : max)));
    if (turn.raw !== undefined) out.push(indent(`raw output: ${JSON.stringify(clip(turn.raw, max))}`));
    for (const call of turn.calls)
      out.push(`    → ${call.tool}(${clip(call.arguments, max)})${call.run ? '' : '  (not run)'}`);
  }
  out.push('');
  if (view.diff.length === 0) out.push('final-state diff: none (the final state matches the expected state)');
  else
    out.push(
      renderText({
        id: 'diff',
        title: `final-state diff (${view.diff.length})`,
        headers: ['table', 'key', 'column', 'expected', 'actual', 'kind'],
        rows: view.diff.map((d) => [d.table, d.key, d.column, clip(d.expected, 120), clip(d.actual, 120), d.kind]),
        leftColumns: [0, 1, 2, 3, 4, 5],
      }),
    );
  out.push('', view.assertions.length ? `assertions (${view.assertions.length})` : 'assertions: none');
  for (const a of view.assertions)
    out.push(
      `  ${a.pass ? 'pass' : 'FAIL'}  ${a.description}${a.detail && !a.pass ? ` (${clip(a.detail, 200)})` : ''}`,
    );
  out.push(view.rubrics.length ? `rubrics (${view.rubrics.length})` : 'rubrics: none');
  for (const r of view.rubrics)
    out.push(
      `  ${r.verdict === 'passed' ? 'pass' : r.verdict === 'failed' ? 'FAIL' : r.verdict}  ${r.kind}: ${clip(r.detail, 300)}`,
    );
  out.push('', view.toolCalls.length ? `tool calls (${view.toolCalls.length})` : 'tool calls: none');
  for (const c of view.toolCalls)
    out.push(
      `  ${c.index === null ? '#— (refused, not run)' : `#${c.index}`} ${c.tool}(${clip(c.arguments, max)}) ${Math.round(c.ms)} ms${c.isError ? ' ERROR' : ''}`,
      indent(`← ${clip(c.result, max)}`, '      '),
    );
  return printable(`${out.join('\n').replace(/\n+$/, '')}\n`);
}

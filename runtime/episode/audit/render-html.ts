import { escapeHtml } from '../../../stats/tables/table.js';
import type { EpisodeView } from './episode-view.js';

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1120px; color: #1f2937; padding: 0 1rem; }
h1 { font-size: 1.3rem; margin-bottom: 0.2rem; word-break: break-all; } .summary { font-size: 1.05rem; margin-top: 0; }
.pass { color: #15803d; } .fail { color: #b91c1c; font-weight: 600; }
h2 { border-bottom: 2px solid #e5e7eb; padding-bottom: 0.3rem; margin-top: 2rem; font-size: 1.1rem; }
table { border-collapse: collapse; font-size: 0.85rem; } th, td { border: 1px solid #d1d5db; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f3f4f6; } td { overflow-wrap: anywhere; max-width: 32rem; } .diff td:nth-child(-n+2), .diff td:nth-child(4), #facts td:first-child { white-space: nowrap; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.turn { border-left: 4px solid #d1d5db; padding: 0.3rem 0.8rem; margin: 0.6rem 0; background: #fafafa; }
.turn.user { border-color: #2563eb; } .turn.assistant { border-color: #16a34a; } .turn.tool { border-color: #9ca3af; } .turn.system { border-color: #7c3aed; }
.label { color: #6b7280; font-size: 0.8rem; } pre.raw { background: #fef2f2; } pre { white-space: pre-wrap; word-break: break-word; margin: 0.3rem 0; font-size: 0.85rem; }
.call { font-family: ui-monospace, monospace; font-size: 0.85rem; background: #ecfdf5; padding: 0.1rem 0.3rem; display: block; margin: 0.2rem 0; }
details summary { cursor: pointer; color: #4b5563; } nav a { margin-right: 1rem; }
`;

const pre = (text: string) => `<pre>${escapeHtml(text)}</pre>`;

function table(
  headers: string[] | null,
  rows: string[][],
  rowClass?: (i: number) => string,
  className?: string,
): string {
  const head = headers ? `<thead><tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>` : '';
  const body = rows
    .map(
      (r, i) =>
        `<tr${rowClass ? ` class="${rowClass(i)}"` : ''}>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table${className ? ` class="${className}"` : ''}>${head}<tbody>\n${body}\n</tbody></table>`;
}

/** One self-contained page per episode (no scripts, no external resources); `back` links to the report. */
export function renderEpisodeHtml(view: EpisodeView, options: { back?: { href: string; label: string } } = {}): string {
  const turns = view.conversation.map((t) => {
    const body = [
      `<div class="label">${escapeHtml(t.label)}</div>`,
      t.reasoning ? `<details><summary>reasoning</summary>${pre(t.reasoning)}</details>` : '',
      t.raw !== undefined
        ? `<div class="label">raw model output (could not be executed as written)</div><pre class="raw">${escapeHtml(t.raw)}</pre>`
        : '',
      t.role === 'system'
        ? `<details><summary>system prompt (${t.text.length} characters)</summary>${pre(t.text)}</details>`
        : t.text
          ? pre(t.text)
          : '',
      ...t.calls.map(
        (c) =>
          `<span class="call">→ ${escapeHtml(c.tool)}(${escapeHtml(c.arguments)})${c.run ? '' : ' (not run)'}</span>`,
      ),
    ];
    return `<div class="turn ${t.role}">${body.join('')}</div>`;
  });
  const diff = view.diff.length
    ? table(
        ['kind', 'table', 'key', 'column', 'expected', 'actual'],
        view.diff.map((d) => [d.kind, d.table, d.key, d.column, d.expected, d.actual]),
        undefined,
        'diff',
      )
    : '<p class="pass">No difference: the final state matches the expected state.</p>';
  const assertions = view.assertions.length
    ? table(
        ['verdict', 'assertion', 'detail'],
        view.assertions.map((a) => [a.pass ? 'pass' : 'FAIL', a.description, a.detail]),
        (i) => (view.assertions[i]!.pass ? 'pass' : 'fail'),
      )
    : '<p>No SQL assertions.</p>';
  const rubrics = view.rubrics.length
    ? table(
        ['verdict', 'kind', 'detail'],
        view.rubrics.map((r) => [r.verdict, r.kind, r.detail]),
        (i) => (view.rubrics[i]!.verdict === 'failed' ? 'fail' : 'pass'),
      )
    : '<p>No rubrics.</p>';
  const calls = view.toolCalls.length
    ? table(
        ['#', 'tool', 'arguments', 'ms', 'result (what the agent saw)'],
        view.toolCalls.map((c) => [
          c.index === null ? '— (refused)' : String(c.index),
          `${c.tool}${c.isError ? ' (error)' : ''}`,
          c.arguments,
          String(Math.round(c.ms)),
          c.result,
        ]),
      )
    : '<p>No tool calls.</p>';
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>Episode ${escapeHtml(view.episodeId)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    options.back ? `<nav><a href="${escapeHtml(options.back.href)}">← ${escapeHtml(options.back.label)}</a></nav>` : '',
    `<h1>Episode ${escapeHtml(view.episodeId)}</h1>`,
    `<p class="summary ${view.reward === 1 ? 'pass' : 'fail'}" id="summary">${escapeHtml(view.summary)}</p>`,
    `<section id="facts">${table(
      null,
      view.facts.map(([l, v]) => [l, v]),
    )}</section>`,
    `<section id="diff"><h2>Final-state diff</h2>${diff}</section>`,
    `<section id="assertions"><h2>Assertions</h2>${assertions}</section>`,
    `<section id="rubrics"><h2>Rubrics</h2>${rubrics}</section>`,
    `<section id="conversation"><h2>Conversation</h2>${turns.join('\n')}</section>`,
    `<section id="tool-calls"><h2>Tool calls</h2>${calls}</section>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

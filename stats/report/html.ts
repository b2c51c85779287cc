import { escapeHtml, renderHtml as renderTableHtml } from '../tables/table.js';
import type { ReportDocument } from './document.js';

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1320px; color: #1f2937; padding: 0 1rem; }
h1 { margin-bottom: 0.2rem; } .subtitle { color: #6b7280; margin-top: 0; }
h2 { border-bottom: 2px solid #e5e7eb; padding-bottom: 0.3rem; margin-top: 2.2rem; }
h3 { font-size: 1rem; margin: 1.4rem 0 0.4rem; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border: 1px solid #d1d5db; padding: 0.3rem 0.6rem; text-align: left; }
th { background: #f3f4f6; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafafa; }
.note { color: #4b5563; font-size: 0.85rem; max-width: 60rem; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; }
.side { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; } .side > .tables { flex: 1 1 560px; min-width: 0; overflow-x: auto; }
.side > .charts { flex: 0 0 520px; }
a { color: #1d4ed8; }
figure { margin: 0; } figcaption { color: #4b5563; font-size: 0.8rem; max-width: 520px; }
`;

const charts = (s: ReportDocument['sections'][number]) =>
  `<div class="charts">${s.charts.map((c) => `<figure>${c.svg}<figcaption>${escapeHtml(c.caption)}</figcaption></figure>`).join('\n')}</div>`;

/** One self-contained HTML file: inline CSS, inline SVG, no scripts, no external resources. */
export function renderReportHtml(doc: ReportDocument): string {
  const sections = doc.sections.map((s) =>
    [
      `<section id="${escapeHtml(s.id)}">`,
      `<h2>${escapeHtml(s.title)}</h2>`,
      ...s.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
      // The results: the headline table with its curves beside it, the other tables at full width below.
      ...(s.tables.length && s.charts.length && s.id === 'results'
        ? [
            `<div class="side"><div class="tables">${renderTableHtml(s.tables[0]!)}</div>${charts(s)}</div>`,
            ...s.tables.slice(1).map(renderTableHtml),
          ]
        : [...s.tables.map(renderTableHtml), s.charts.length ? charts(s) : '']),
      '</section>',
    ].join('\n'),
  );
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeHtml(doc.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(doc.title)}</h1>`,
    `<p class="subtitle">${escapeHtml(doc.subtitle)}</p>`,
    ...sections,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

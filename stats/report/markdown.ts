import { renderMarkdown as renderTableMarkdown } from '../tables/table.js';
import type { ReportDocument } from './document.js';

/** The Markdown twin: the same sections and tables; charts are SVG files in `chartsDir` (relative to the .md). */
export function renderReportMarkdown(doc: ReportDocument, chartsDir: string): string {
  const parts = [`# ${doc.title}`, '', `_${doc.subtitle}_`];
  for (const s of doc.sections) {
    parts.push('', `## ${s.title}`);
    for (const p of s.paragraphs) parts.push('', p);
    for (const t of s.tables) parts.push('', renderTableMarkdown(t));
    for (const c of s.charts) parts.push('', `![${c.title}](${chartsDir}/${c.id}.svg)`, '', `_${c.caption}_`);
  }
  return `${parts.join('\n')}\n`;
}

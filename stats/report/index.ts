import fs from 'node:fs';
import path from 'node:path';
import { buildReport, type ReportDocument } from './document.js';
import { renderReportHtml } from './html.js';
import type { ReportInput } from './input.js';
import { renderReportMarkdown } from './markdown.js';

export type { ReportInput } from './input.js';

export interface WrittenReport {
  html: string;
  markdown: string;
  /** The SVG files the Markdown twin shows. */
  charts: string[];
  document: ReportDocument;
}

/**
 * Write `<outDir>/<name>.html` (self-contained) and its Markdown twin `<outDir>/<name>.md`, whose charts are
 * SVG files in `<outDir>/<name>-charts/`.
 */
export function writeReport(input: ReportInput, outDir: string, name = 'report'): WrittenReport {
  const document = buildReport(input);
  fs.mkdirSync(outDir, { recursive: true });
  const chartsDirName = `${name}-charts`;
  const chartsDir = path.join(outDir, chartsDirName);
  fs.mkdirSync(chartsDir, { recursive: true });
  const charts = document.sections
    .flatMap((s) => s.charts)
    .map((c) => {
      const file = path.join(chartsDir, `${c.id}.svg`);
      fs.writeFileSync(file, `${c.svg}\n`);
      return file;
    });
  const html = path.join(outDir, `${name}.html`);
  const markdown = path.join(outDir, `${name}.md`);
  fs.writeFileSync(html, renderReportHtml(document));
  fs.writeFileSync(markdown, renderReportMarkdown(document, chartsDirName));
  return { html, markdown, charts, document };
}

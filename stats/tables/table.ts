/** A table as data, rendered as aligned text (CLI), Markdown or HTML (report) from one layout. */
export interface Table {
  id: string;
  title: string;
  headers: string[];
  rows: string[][];
  /** Indexes of left-aligned (text) columns; default [0]. The others are right-aligned numbers. */
  leftColumns?: number[];
  note?: string;
  /** Where a cell links to (same shape as rows; undefined: no link). HTML and Markdown render them as links. */
  links?: Array<Array<string | undefined>>;
}

const isLeft = (table: Table, column: number) => (table.leftColumns ?? [0]).includes(column);

export function renderText(table: Table): string {
  const widths = table.headers.map((h, i) => Math.max(h.length, ...table.rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (isLeft(table, i) ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [table.title, line(table.headers), widths.map((w) => '─'.repeat(w)).join('  '), ...table.rows.map(line)];
  if (table.note) out.push(table.note);
  return out.join('\n');
}

const escapeMarkdown = (text: string) => text.replace(/\|/g, '\\|');

export function renderMarkdown(table: Table): string {
  const row = (cells: string[], r?: number) =>
    `| ${cells
      .map((c, i) => {
        const href = r === undefined ? undefined : table.links?.[r]?.[i];
        return href ? `[${escapeMarkdown(c)}](${href})` : escapeMarkdown(c);
      })
      .join(' | ')} |`;
  const rule = `|${table.headers.map((_, i) => (isLeft(table, i) ? ' :--- ' : ' ---: ')).join('|')}|`;
  const out = [`### ${table.title}`, '', row(table.headers), rule, ...table.rows.map((r, i) => row(r, i))];
  if (table.note) out.push('', `_${table.note}_`);
  return out.join('\n');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderHtml(table: Table): string {
  const cell = (tag: 'th' | 'td', text: string, i: number, href?: string) =>
    `<${tag}${isLeft(table, i) ? '' : ' class="num"'}>${href ? `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>` : escapeHtml(text)}</${tag}>`;
  const head = `<tr>${table.headers.map((h, i) => cell('th', h, i)).join('')}</tr>`;
  const body = table.rows
    .map((r, row) => `<tr>${r.map((c, i) => cell('td', c, i, table.links?.[row]?.[i])).join('')}</tr>`)
    .join('\n');
  const note = table.note ? `<p class="note">${escapeHtml(table.note)}</p>` : '';
  return `<section class="table" id="${escapeHtml(table.id)}"><h3>${escapeHtml(table.title)}</h3>\n<table id="table-${escapeHtml(table.id)}"><thead>${head}</thead>\n<tbody>\n${body}\n</tbody></table>${note}</section>`;
}

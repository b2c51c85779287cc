import { escapeHtml } from '../tables/table.js';

/** Small, dependency-free SVG charts, inlined in the HTML report and written beside the Markdown twin. */

export interface Point {
  x: number;
  y: number;
  /** Optional interval drawn as an error bar. */
  lo?: number;
  hi?: number;
}

export interface Series {
  name: string;
  color: string;
  points: Point[];
}

const WIDTH = 520;
const HEIGHT = 260;
const MARGIN = { top: 34, right: 16, bottom: 42, left: 56 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

/** About `count` round tick values (steps of 1, 2 or 5 times a power of ten) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step)
    ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const fmt = (v: number) =>
  Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-4 && v !== 0) ? v.toExponential(1) : String(Number(v.toPrecision(4)));

function frame(id: string, title: string, xLabel: string, yLabel: string, body: string): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" id="${escapeHtml(id)}" class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(title)}" font-family="system-ui, sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="18" text-anchor="middle" font-size="13" font-weight="600">${escapeHtml(title)}</text>`,
    `<text x="${MARGIN.left + PLOT_W / 2}" y="${HEIGHT - 6}" text-anchor="middle">${escapeHtml(xLabel)}</text>`,
    `<text transform="translate(14 ${MARGIN.top + PLOT_H / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(yLabel)}</text>`,
    body,
    '</svg>',
  ].join('\n');
}

function axes(xTicks: Array<{ at: number; label: string }>, yTicks: Array<{ at: number; label: string }>): string {
  const parts = [
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${PLOT_W}" height="${PLOT_H}" fill="none" stroke="#888"/>`,
  ];
  for (const t of yTicks) {
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + PLOT_W}" y1="${t.at}" y2="${t.at}" stroke="#e3e3e3"/>`);
    parts.push(`<text x="${MARGIN.left - 5}" y="${t.at + 4}" text-anchor="end">${escapeHtml(t.label)}</text>`);
  }
  for (const t of xTicks)
    parts.push(`<text x="${t.at}" y="${MARGIN.top + PLOT_H + 15}" text-anchor="middle">${escapeHtml(t.label)}</text>`);
  return parts.join('\n');
}

function noData(id: string, title: string): string {
  return frame(
    id,
    title,
    '',
    '',
    `<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle" fill="#777">no data</text>`,
  );
}

export interface LineChartOptions {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  yMin?: number;
  yMax?: number;
  yFormat?: (v: number) => string;
}

export function lineChart(o: LineChartOptions): string {
  const points = o.series.flatMap((s) => s.points);
  if (points.length === 0) return noData(o.id, o.title);
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]);
  let [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  if (xMin === xMax) [xMin, xMax] = [xMin - 1, xMax + 1];
  let yMin = o.yMin ?? Math.min(...ys);
  let yMax = o.yMax ?? Math.max(...ys);
  if (yMin === yMax) [yMin, yMax] = [yMin - 1, yMax + 1];
  const sx = (x: number) => MARGIN.left + ((x - xMin) / (xMax - xMin)) * PLOT_W;
  const sy = (y: number) => MARGIN.top + PLOT_H - ((y - yMin) / (yMax - yMin)) * PLOT_H;
  const yFormat = o.yFormat ?? fmt;
  const parts = [
    axes(
      niceTicks(xMin, xMax, 6).map((x) => ({ at: sx(x), label: fmt(x) })),
      niceTicks(yMin, yMax, 5).map((y) => ({ at: sy(y), label: yFormat(y) })),
    ),
  ];
  o.series.forEach((s, i) => {
    const path = s.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
    for (const p of s.points) {
      if (p.lo !== undefined && p.hi !== undefined)
        parts.push(
          `<line x1="${sx(p.x).toFixed(1)}" x2="${sx(p.x).toFixed(1)}" y1="${sy(p.lo).toFixed(1)}" y2="${sy(p.hi).toFixed(1)}" stroke="${s.color}" stroke-width="1.5"/>`,
        );
      if (s.points.length <= 40)
        parts.push(`<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="3" fill="${s.color}"/>`);
    }
    if (o.series.length > 1)
      parts.push(
        `<text x="${MARGIN.left + 8}" y="${MARGIN.top + 14 + 14 * i}" fill="${s.color}">${escapeHtml(s.name)}</text>`,
      );
  });
  return frame(o.id, o.title, o.xLabel, o.yLabel, parts.join('\n'));
}

export interface StackedBarChartOptions {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  /** Labels under the bars (some may be empty to thin them out). */
  categories: string[];
  stacks: Array<{ name: string; color: string; values: number[] }>;
}

export function stackedBarChart(o: StackedBarChartOptions): string {
  const totals = o.categories.map((_, i) => o.stacks.reduce((s, st) => s + (st.values[i] ?? 0), 0));
  if (totals.every((t) => t === 0)) return noData(o.id, o.title);
  const yTicks = niceTicks(0, Math.max(...totals), 5);
  const yMax = Math.max(yTicks[yTicks.length - 1]!, ...totals);
  const sy = (y: number) => MARGIN.top + PLOT_H - (y / yMax) * PLOT_H;
  const slot = PLOT_W / o.categories.length;
  const parts = [
    axes(
      o.categories.map((label, i) => ({ at: MARGIN.left + slot * (i + 0.5), label })),
      yTicks.map((y) => ({ at: sy(y), label: fmt(y) })),
    ),
  ];
  o.categories.forEach((_, i) => {
    let base = 0;
    for (const stack of o.stacks) {
      const v = stack.values[i] ?? 0;
      if (v > 0)
        parts.push(
          `<rect x="${(MARGIN.left + slot * i + 1).toFixed(1)}" y="${sy(base + v).toFixed(1)}" width="${(slot - 2).toFixed(1)}" height="${(sy(base) - sy(base + v)).toFixed(1)}" fill="${stack.color}"><title>${escapeHtml(`${stack.name}: ${v}`)}</title></rect>`,
        );
      base += v;
    }
  });
  // The legend sits in the top margin, right of the title, so it never hides a bar.
  o.stacks.forEach((s, i) =>
    parts.push(
      `<rect x="${WIDTH - 64}" y="${4 + 13 * i}" width="9" height="9" fill="${s.color}"/><text x="${WIDTH - 51}" y="${12 + 13 * i}">${escapeHtml(s.name)}</text>`,
    ),
  );
  return frame(o.id, o.title, o.xLabel, o.yLabel, parts.join('\n'));
}

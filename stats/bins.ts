import { BinEdges } from '../schemas/results.js';
import { UserError } from '../core/errors.js';

export { DEFAULT_EDGES, DEFAULT_KEEP } from '../schemas/results.js';

/** Bins kept when none are named: all but the first and the last (for the default edges, the three middle ones). */
export function defaultKeep(edges: readonly number[]): number[] {
  const bins = binCount(edges);
  return bins >= 3 ? Array.from({ length: bins - 2 }, (_, i) => i + 1) : Array.from({ length: bins }, (_, i) => i);
}

export function binCount(edges: readonly number[]): number {
  return edges.length - 1;
}

export function binLabel(edges: readonly number[], bin: number): string {
  const lo = edges[bin];
  const hi = edges[bin + 1];
  if (lo === undefined || hi === undefined) throw new RangeError(`no bin ${bin} for edges ${edges.join(',')}`);
  return `[${lo},${hi}${bin === edges.length - 2 ? ']' : ')'}`;
}

/** Parse "0,0.08,0.4,0.6,0.9,1" (from a CLI flag or a config), naming `where` on error. */
export function parseEdges(text: string, where: string): number[] {
  const values = text.split(',').map((s) => Number(s.trim()));
  const parsed = BinEdges.safeParse(values);
  if (!parsed.success || values.some((v) => !Number.isFinite(v))) {
    const reason = parsed.success ? 'not a number' : parsed.error.issues.map((i) => i.message).join('; ');
    throw new UserError(`${where}: bad bin edges ${JSON.stringify(text)}: ${reason}`);
  }
  return parsed.data;
}

/** Parse "1,2,3" as bin indices valid for `edges`. */
export function parseKeep(text: string, edges: readonly number[], where: string): number[] {
  const values = text.split(',').map((s) => s.trim());
  const bins = values.map((v) => Number(v));
  const bad = values.find((v, i) => !/^\d+$/.test(v) || bins[i]! >= binCount(edges));
  if (bad !== undefined) {
    throw new UserError(
      `${where}: bin ${JSON.stringify(bad)} is not one of 0..${binCount(edges) - 1} (bins ${edges
        .map((_, i) => (i < binCount(edges) ? `${i}=${binLabel(edges, i)}` : ''))
        .filter(Boolean)
        .join(' ')})`,
    );
  }
  return [...new Set(bins)].sort((a, b) => a - b);
}

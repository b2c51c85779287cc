/** Shared number formats for tables, the CLI and the report. */

export const percent = (x: number, digits = 2) => `${(100 * x).toFixed(digits)}%`;
export const points = (x: number, digits = 2) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(digits)} pts`;
export const usd = (x: number | null, digits = 2) => (x === null ? '—' : `${x.toFixed(digits)} $`);
export const percentInterval = (i: readonly [number, number]) =>
  `[${(100 * i[0]).toFixed(1)}, ${(100 * i[1]).toFixed(1)}]`;
export const pointsInterval = (i: readonly [number, number]) => `[${points(i[0], 1)}, ${points(i[1], 1)}]`;

import type { EvalPoint, ResultRow } from '../schemas/results.js';
import { computeMetrics } from './metrics.js';

/** The pass@1 point (with its Jeffreys interval) that one evaluation adds to the report's curve. */
export function evalPointOf(step: number, rows: readonly ResultRow[], label?: string): EvalPoint {
  const m = computeMetrics(rows, { k: 1 });
  return { step, pass1: m.pass1, interval: m.intervals.pass1, ...(label ? { label } : {}) };
}

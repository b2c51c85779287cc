import type { TaskMetrics } from './metrics.js';

/** A task solved at least once by one side and never by the other. */
export interface CoverageFlip {
  taskId: string;
  domain: string;
  /** stats/task-family.ts: the domain and the first tag (the task type). */
  family: string;
  /** lost: the base solved it at least once and the trained policy never did; gained: the reverse. */
  change: 'lost' | 'gained';
  base: { c: number; n: number };
  trained: { c: number; n: number };
}

/** Tasks solved at least once, before and after, within a domain or a task family. */
export interface CoverageGroup {
  name: string;
  tasks: number;
  base: number;
  trained: number;
  lost: number;
  gained: number;
}

export interface CoverageChanges {
  lost: CoverageFlip[];
  gained: CoverageFlip[];
  /** Every domain, by name. */
  byDomain: CoverageGroup[];
  /** Every task family, by name. */
  byFamily: CoverageGroup[];
}

/**
 * Where coverage went between two evaluations of the same tasks: `base[i]` and `trained[i]` are one task. A task is
 * covered when at least one of its n trials succeeded (TaskMetrics.covered, the `solved at least once` metric).
 */
export function coverageChanges(base: readonly TaskMetrics[], trained: readonly TaskMetrics[]): CoverageChanges {
  const flips: CoverageFlip[] = [];
  base.forEach((b, i) => {
    const t = trained[i]!;
    if (b.covered === t.covered) return;
    flips.push({
      taskId: b.taskId,
      domain: b.domain,
      family: b.family,
      change: b.covered ? 'lost' : 'gained',
      base: { c: b.c, n: b.n },
      trained: { c: t.c, n: t.n },
    });
  });
  const groups = (keyOf: (t: TaskMetrics) => string): CoverageGroup[] => {
    const byName = new Map<string, CoverageGroup>();
    base.forEach((b, i) => {
      const name = keyOf(b);
      const g = byName.get(name) ?? { name, tasks: 0, base: 0, trained: 0, lost: 0, gained: 0 };
      const t = trained[i]!;
      g.tasks += 1;
      g.base += b.covered ? 1 : 0;
      g.trained += t.covered ? 1 : 0;
      g.lost += b.covered && !t.covered ? 1 : 0;
      g.gained += !b.covered && t.covered ? 1 : 0;
      byName.set(name, g);
    });
    return [...byName.values()].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  };
  return {
    lost: flips.filter((f) => f.change === 'lost'),
    gained: flips.filter((f) => f.change === 'gained'),
    byDomain: groups((t) => t.domain),
    byFamily: groups((t) => t.family),
  };
}

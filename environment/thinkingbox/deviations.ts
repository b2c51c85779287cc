import type { Task } from '../../schemas/task.js';

/**
 * How a set of ThinkingBox tasks runs here unlike on ThinkingBox's reference setup, one line each, for every printed
 * result to name: scenarios whose `sources` were left out (no Typesense), so their policy search is unavailable.
 */
export function thinkingBoxDeviations(tasks: readonly Task[]): string[] {
  const dropped = [...new Set(tasks.flatMap((t) => t.thinkingbox?.droppedSources ?? []))].sort();
  if (dropped.length === 0) return [];
  return [
    `deviation: ThinkingBox scenario sources left out (no Typesense here) for ${dropped.join(', ')}: their policy-search tool answers that search is unavailable`,
  ];
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeFolders, importsOf, sources } from './imports.js';

/**
 * Strongly connected components of the import graph (Tarjan) with more than one module: each is a circle of
 * imports, where the order in which the modules initialise depends on which one is imported first.
 */
function importCircles(files: readonly string[]): string[][] {
  const edges = new Map(files.map((f) => [f, importsOf(f).map((i) => i.to)] as const));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return circles;
}

const code = codeFolders().flatMap(sources);

test('no module imports itself through a circle of imports', () => {
  assert.deepEqual(importCircles(code), []);
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { importsOf, sources } from './imports.js';

// The layer rule of docs/ARCHITECTURE.md: a module imports only from its own folder or from a lower layer, never
// from beside or above it. Workflows are the exception: they run in Temporal's sandbox, so they import other layers
// only as types, plus a few pure modules.
const LAYERS: Record<string, number> = {
  core: 0,
  schemas: 1,
  stats: 2,
  environment: 2,
  storage: 2,
  domains: 3,
  runtime: 3,
  activities: 4,
  infra: 4,
  workflows: 5,
  wiring: 5,
  workers: 6,
  cli: 7,
  test: 8,
  bench: 9,
};
const PURE_FOR_WORKFLOWS = new Set([
  'core/failure-types.ts',
  'stats/random.ts',
  'stats/adaptive-probing.ts',
  'stats/jeffreys.ts',
  'stats/incomplete-beta.ts',
  'stats/bins.ts',
  'stats/selection.ts',
]);

const layerOf = (file: string) => file.split(path.sep)[0]!;
const code = Object.keys(LAYERS)
  .filter((d) => fs.existsSync(fromRoot(d)))
  .flatMap(sources);

test('every top-level folder of code has a layer', () => {
  const folders = new Set(code.map(layerOf));
  for (const folder of folders) assert.ok(folder in LAYERS, `${folder}/ has no layer in test/project/layers.test.ts`);
});

test('no layer imports one beside or above it', () => {
  const wrong: string[] = [];
  for (const file of code) {
    const from = layerOf(file);
    if (from === 'workflows') continue;
    for (const imp of importsOf(file)) {
      const to = layerOf(imp.to);
      if (to === from) continue;
      const ok = to in LAYERS && LAYERS[to]! < LAYERS[from]!;
      if (!ok) wrong.push(`${file}:${imp.line} (${from}) imports ${imp.to} (${to})`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('workflows import other layers only as types, and values only from pure modules', () => {
  const wrong: string[] = [];
  for (const file of code.filter((f) => layerOf(f) === 'workflows')) {
    for (const imp of importsOf(file)) {
      if (imp.typeOnly || layerOf(imp.to) === 'workflows' || PURE_FOR_WORKFLOWS.has(imp.to)) continue;
      wrong.push(`${file}:${imp.line} imports ${imp.to} as a value`);
    }
  }
  assert.deepEqual(wrong, []);
});

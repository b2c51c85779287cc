import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { codeFolders, importsOf, sources } from './imports.js';

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
  workers: 6,
  cli: 7,
  testkit: 8,
  test: 9,
  bench: 9,
};
const PURE_FOR_WORKFLOWS = new Set([
  'core/failure-causes.ts',
  'core/failure-types.ts',
  'core/policy-versions.ts',
  'core/update-memory-model.ts',
  'infra/update-memory.ts',
  'stats/random.ts',
  'stats/adaptive-probing.ts',
  'stats/jeffreys.ts',
  'stats/incomplete-beta.ts',
  'stats/bins.ts',
  'stats/selection.ts',
]);

/**
 * Folders of TypeScript outside every layer. templates/ holds the scaffold that `finalstate domain init` copies for an
 * external pack: its own package, built outside this project's tsconfig against the published `finalstate/domain`
 * API, so it stands beside the project, not on one of its floors (the last test below checks that it does).
 */
const OUTSIDE_LAYERS = new Set(['templates']);

const layerOf = (file: string) => file.split(path.sep)[0]!;
const folders = codeFolders();
const code = folders.filter((d) => d in LAYERS).flatMap(sources);

test('every top-level folder of code has a layer, and every layer is a folder', () => {
  const unplaced = folders.filter((d) => !(d in LAYERS) && !OUTSIDE_LAYERS.has(d));
  assert.deepEqual(unplaced, [], 'folders of code with no layer in test/project/layers.test.ts');
  const missing = Object.keys(LAYERS).filter((d) => !folders.includes(d));
  assert.deepEqual(missing, [], 'layers in test/project/layers.test.ts with no folder of code');
});

const architecture = fs.readFileSync(fromRoot('docs', 'ARCHITECTURE.md'), 'utf8');

test('the layer line of docs/ARCHITECTURE.md is the layers this test checks', () => {
  const line = architecture.split('\n').find((l) => /^core\s+←/.test(l));
  assert.ok(line, 'docs/ARCHITECTURE.md has no layer line starting with `core ←`');
  const documented: Record<string, number> = {};
  line.split('←').forEach((floor, level) => {
    for (const folder of floor.split('·')) documented[folder.trim()] = level;
  });
  assert.deepEqual(documented, LAYERS);
});

test('the layout table of docs/ARCHITECTURE.md names the folders of code, and only folders that exist', () => {
  const layout = architecture.slice(architecture.indexOf('## Layout'), architecture.indexOf('## Layers'));
  const named = [...layout.matchAll(/^\| `([^/`]+)\/[^`]*` \|/gm)].map((m) => m[1]!);
  assert.ok(named.length > 0, 'no folder rows found under "## Layout" in docs/ARCHITECTURE.md');
  assert.deepEqual(
    folders.filter((d) => !named.includes(d)),
    [],
    'folders of code missing from the layout table',
  );
  assert.deepEqual(
    named.filter((d) => !fs.existsSync(fromRoot(d))),
    [],
    'layout table rows for folders that do not exist',
  );
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

test('templates/ imports nothing of the project but the public `finalstate/domain` API', () => {
  const wrong: string[] = [];
  for (const file of [...OUTSIDE_LAYERS].flatMap(sources)) {
    const text = fs.readFileSync(fromRoot(file), 'utf8');
    for (const imp of importsOf(file)) {
      const pack = file.split(path.sep).slice(0, 2).join(path.sep);
      if (!imp.to.startsWith(pack + path.sep)) wrong.push(`${file}:${imp.line} imports ${imp.to}`);
    }
    for (const m of text.matchAll(/from\s+['"]([^.'"][^'"]*)['"]/g)) {
      if (m[1]!.startsWith('finalstate') && m[1] !== 'finalstate/domain') wrong.push(`${file} imports ${m[1]}`);
    }
  }
  assert.deepEqual(wrong, []);
});

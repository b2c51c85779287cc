import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { writeJsonSchemas } from '../../schemas/export.js';

const git = (...args: string[]) =>
  execFileSync('git', ['-C', fromRoot(), ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

// `npm run build` rewrites schemas/json/ from the zod schemas, so the working tree is always fresh after a build: what
// must be checked is the copy git holds, which the Python side reads on a machine that has not built.
test('the committed schemas/json/ is the export of the zod schemas as they are, file for file', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-json-schemas-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fresh = new Map(writeJsonSchemas(dir).map((file) => [path.basename(file), fs.readFileSync(file, 'utf8')]));
  const committed = git('ls-tree', '--name-only', 'HEAD', 'schemas/json/')
    .split('\n')
    .filter(Boolean)
    .map((file) => path.basename(file));
  assert.deepEqual(
    committed.filter((name) => !fresh.has(name)),
    [],
    'committed in schemas/json/ but no longer exported (delete them)',
  );
  const stale = [...fresh].filter(
    ([name, text]) => !committed.includes(name) || git('show', `HEAD:schemas/json/${name}`) !== text,
  );
  assert.deepEqual(
    stale.map(([name]) => name),
    [],
    'schemas/json/ files whose committed copy differs from a fresh export: run `npm run build` and commit them',
  );
});

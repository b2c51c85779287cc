import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';

// test/tiers.json puts every test file in one tier, and test/run.sh runs a tier by name from it: a file in no tier would
// never run, a file in two would run twice, an entry without its file would be a test dropped unnoticed. Read as text.
const TIERS = ['unit', 'stack', 'own'] as const;
/** own: its lanes, which run side by side, one file at a time each; a file of the own tier says why it is there. */
type Manifest = { unit: string[]; stack: string[]; own: Record<string, string>[] };
const manifest = JSON.parse(fs.readFileSync(fromRoot('test', 'tiers.json'), 'utf8')) as Manifest;
const entries = (tier: (typeof TIERS)[number]) =>
  tier === 'own' ? manifest.own.flatMap((lane) => Object.keys(lane)) : manifest[tier];

function testFiles(dir: string): string[] {
  return fs.readdirSync(fromRoot(dir), { withFileTypes: true }).flatMap((d) => {
    const rel = path.posix.join(dir, d.name);
    if (d.isDirectory()) return testFiles(rel);
    return d.name.endsWith('.test.ts') ? [rel] : [];
  });
}

test('every test/**/*.test.ts is in exactly one tier of test/tiers.json, and every entry is a test file that exists', () => {
  assert.deepEqual(
    Object.keys(manifest)
      .filter((k) => !k.startsWith('$'))
      .sort(),
    [...TIERS].sort(),
  );
  const tierOf = new Map<string, string[]>();
  for (const tier of TIERS) for (const file of entries(tier)) tierOf.set(file, [...(tierOf.get(file) ?? []), tier]);
  const files = testFiles('test').sort();
  assert.deepEqual(
    files.filter((f) => !tierOf.has(f)),
    [],
    'test files in no tier (add each to test/tiers.json)',
  );
  assert.deepEqual(
    [...tierOf].filter(([, tiers]) => tiers.length > 1).map(([f, tiers]) => `${f}: ${tiers.join(', ')}`),
    [],
    'in more than one tier, or twice in one',
  );
  assert.deepEqual(
    [...tierOf.keys()].filter((f) => !files.includes(f)),
    [],
    'entries of test/tiers.json with no such test file',
  );
  assert.equal(manifest.own.length, 2, 'the own tier has two lanes (test/run.sh runs lanes 1 and 2)');
  for (const [file, why] of manifest.own.flatMap((lane) => Object.entries(lane)))
    assert.ok(why.trim().length > 0, `${file}: a file of the own tier says why it is there`);
});

test('test/run.sh runs each tier with an explicit --test-concurrency', () => {
  const runSh = fs.readFileSync(fromRoot('test', 'run.sh'), 'utf8');
  for (const tier of TIERS)
    assert.match(
      runSh,
      new RegExp(`run_tier "?${tier}(:\\$1")? --test-concurrency=\\d+ `),
      `test/run.sh runs the ${tier} tier`,
    );
});

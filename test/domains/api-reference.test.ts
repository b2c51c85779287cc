import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fromRoot } from '../../core/paths.js';
import { apiMigration } from '../../environment/pack-modules.js';
import { PACK_TEMPLATE } from '../../cli/domain/scaffold.js';

// The reference table of docs/domain-packs.md against the emitted declarations of `finalstate/domain`: every export
// has a row, every row names an export, and each row points to an example a pack author can read (a file of the
// scaffold that uses the name, or a section of the guide that mentions it), never into the repository's source.

const doc = fs.readFileSync(fromRoot('docs', 'domain-packs.md'), 'utf8');
const exported = [...apiMigration().values()].flat().sort();

function referenceRows(): { names: string[]; example: string; line: string }[] {
  const start = doc.indexOf('| export | what it is | example |');
  assert.ok(start >= 0, 'docs/domain-packs.md has the export table');
  return doc
    .slice(start)
    .split('\n')
    .slice(2)
    .filter((l, i, all) => l.startsWith('|') && all.slice(0, i).every((p) => p.startsWith('|')))
    .map((line) => {
      const [names, , example] = line.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, ''));
      return { names: [...names!.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1]!), example: example!, line };
    });
}

const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

/** The guide's sections by anchor, each with its text. */
function sections(): Map<string, string> {
  const out = new Map<string, string>();
  const parts = doc.split(/^#{2,4} /m).slice(1);
  for (const part of parts) {
    const [heading, ...body] = part.split('\n');
    out.set(anchor(heading!), body.join('\n'));
  }
  return out;
}

test('the export table of docs/domain-packs.md lists exactly what finalstate/domain exports', () => {
  assert.ok(exported.length > 40, `${exported.length} exports read from dist/domains/api.d.ts`);
  const listed = referenceRows().flatMap((r) => r.names);
  const twice = listed.filter((n, i) => listed.indexOf(n) !== i);
  assert.deepEqual(twice, [], 'listed twice');
  assert.deepEqual(
    exported.filter((n) => !listed.includes(n)),
    [],
    'exported but missing from the table',
  );
  assert.deepEqual(
    listed.filter((n) => !exported.includes(n)),
    [],
    'in the table but not exported',
  );
});

test('every row points to an example in the scaffold or the guide that shows its names, never into the source', () => {
  const bySection = sections();
  for (const { names, example, line } of referenceRows()) {
    assert.doesNotMatch(
      example.replace(/scaffold `[^`]+`/g, ''),
      /(^|[\s`(])(domains|environment|schemas|cli|test)\//,
      `points into the source: ${line}`,
    );
    const scaffold = [...example.matchAll(/scaffold `([\w./-]+)`/g)].map((m) => m[1]!);
    const guide = [...example.matchAll(/\]\(#([a-z0-9-]+)\)/g)].map((m) => m[1]!);
    assert.ok(scaffold.length + guide.length > 0, `no example: ${line}`);
    const texts = [
      ...scaffold.map((file) => {
        assert.ok(fs.existsSync(path.join(PACK_TEMPLATE, file)), `no scaffold file ${file}: ${line}`);
        return fs.readFileSync(path.join(PACK_TEMPLATE, file), 'utf8');
      }),
      ...guide.map((id) => {
        assert.ok(bySection.has(id), `no section #${id}: ${line}`);
        return bySection.get(id)!;
      }),
    ];
    for (const name of names)
      assert.ok(
        texts.some((text) => new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(text)),
        `${name}: its example does not show it: ${line}`,
      );
  }
});

test('the migration table maps every internal module that finalstate/domain re-exports to its public names', () => {
  const start = doc.indexOf('| old import | import from `finalstate/domain` instead |');
  assert.ok(start >= 0, 'docs/domain-packs.md has the migration table');
  const rows = new Map(
    doc
      .slice(start)
      .split('\n')
      .slice(2)
      .filter((l, i, all) => l.startsWith('|') && all.slice(0, i).every((p) => p.startsWith('|')))
      .map((line) => {
        const [from, names] = line.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, ''));
        return [from!.replace(/`/g, ''), [...names!.matchAll(/`([\w$]+)`/g)].map((m) => m[1]!).sort()] as const;
      }),
  );
  const expected = new Map(
    [...apiMigration()].map(([module, names]) => [
      module.startsWith('dist/') ? `finalstate/${module}` : module,
      [...names].sort(),
    ]),
  );
  assert.deepEqual(Object.fromEntries(rows), Object.fromEntries(expected));
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/** Every import specifier of a TypeScript source file (static imports and re-exports). */
const importsOf = (source: string) =>
  [...source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
    );
}

/** A pack written against the public API imports `finalstate/domain` and its own files, nothing else. */
export function assertPublicApiOnly(root: string, minFiles = 10): void {
  const files = sources(root);
  assert.ok(files.length >= minFiles, `${files.length} files`);
  for (const file of files) {
    for (const specifier of importsOf(fs.readFileSync(file, 'utf8'))) {
      if (specifier === 'finalstate/domain') continue;
      assert.ok(specifier.startsWith('.'), `${path.relative(root, file)} imports ${specifier}`);
      assert.ok(
        path.resolve(path.dirname(file), specifier).startsWith(root + path.sep),
        `${path.relative(root, file)} imports ${specifier}, outside the pack`,
      );
    }
  }
}

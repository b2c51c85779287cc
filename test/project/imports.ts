import fs from 'node:fs';
import path from 'node:path';
import { fromRoot } from '../../core/paths.js';

/** Top-level folders of the tree holding TypeScript, read from the disk (dot folders and build outputs left out). */
export function codeFolders(): string[] {
  const holdsTypeScript = (dir: string): boolean =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .some((e) =>
        e.isDirectory()
          ? e.name !== 'node_modules' && holdsTypeScript(path.join(dir, e.name))
          : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'),
      );
  return fs
    .readdirSync(fromRoot(), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !['node_modules', 'dist'].includes(e.name))
    .map((e) => e.name)
    .filter((name) => holdsTypeScript(fromRoot(name)))
    .sort();
}

/** The TypeScript sources under a folder of the project, as paths from the project root. */
export function sources(dir: string): string[] {
  return fs
    .readdirSync(fromRoot(dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .filter((e) => !e.parentPath.split(path.sep).includes('node_modules'))
    .map((e) => path.relative(fromRoot(), path.join(e.parentPath, e.name)));
}

export interface Import {
  from: string;
  /** The imported module, as a path from the project root (`.ts`). */
  to: string;
  typeOnly: boolean;
  line: number;
}

/** The relative imports and re-exports of a source file (package imports are left out). */
export function importsOf(file: string): Import[] {
  const text = fs.readFileSync(fromRoot(file), 'utf8');
  const found: Import[] = [];
  const re = /^(import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const m of text.matchAll(re)) {
    const to = path.normalize(path.join(path.dirname(file), m[3]!)).replace(/\.js$/, '.ts');
    found.push({ from: file, to, typeOnly: Boolean(m[2]), line: text.slice(0, m.index).split('\n').length });
  }
  return found;
}

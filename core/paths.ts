import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';

/** The repository root, found from this file whether it runs from source or from dist/. */
export const projectRoot: string = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('finalstate: cannot find the project root (no package.json above the code)');
    dir = parent;
  }
  return dir;
})();

export function fromRoot(...parts: string[]): string {
  return path.resolve(projectRoot, ...parts);
}

import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { fromRoot, projectRoot } from '../../core/paths.js';

/** The template of an external pack (a real, buildable pack with placeholders); `finalstate domain init` copies it. */
export const PACK_TEMPLATE = fromRoot('templates', 'domain-pack');

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** A domain name from a directory name: lower case, other characters as underscores (`bike-rental` -> `bike_rental`). */
export function packNameOf(dir: string): string {
  return path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, '_$1');
}

function files(dir: string, prefix = ''): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? files(path.join(dir, e.name), path.join(prefix, e.name)) : [path.join(prefix, e.name)],
    );
}

export interface ScaffoldResult {
  dir: string;
  name: string;
  files: string[];
}

/** Template files stored under another name, so that neither git nor `npm pack` treats them as their own. */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };

/** The versions of a dev dependency the pack shares with finalstate (its compiler, its Node types). */
function devDependencyOf(name: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
    devDependencies?: Record<string, string>;
  };
  const version = pkg.devDependencies?.[name];
  if (!version) throw new Error(`finalstate's package.json names no dev dependency ${name}`);
  return version;
}

/**
 * Write a new pack into `dir` (absent or empty): the template with its names filled in, its finalstate dependency a
 * path relative to the pack (`file:../finalstate`, what `npm install -D <path>` writes; no absolute path), and
 * node_modules/finalstate a relative link to this installation, which is what `npm install` makes of that
 * dependency. Nothing in the finalstate checkout is written.
 */
export function scaffoldPack(dir: string, options: { name?: string } = {}): ScaffoldResult {
  const target = path.resolve(dir);
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0)
    throw new UserError(`finalstate domain init: ${target} is not empty; give a new directory`);
  const name = options.name ?? packNameOf(target);
  if (!IDENTIFIER.test(name))
    throw new UserError(
      `finalstate domain init: the pack name ${JSON.stringify(name)} must be lower_snake_case (give --name)`,
    );
  if (target === projectRoot || target.startsWith(projectRoot + path.sep))
    throw new UserError(
      `finalstate domain init: ${target} is inside the finalstate checkout; an external pack lives outside it`,
    );
  const fill = (text: string) =>
    text
      .replaceAll('__PACK_NAME__', name)
      .replaceAll(
        '__PACKAGE_NAME__',
        path
          .basename(target)
          .toLowerCase()
          .replace(/[^a-z0-9._-]+/g, '-'),
      )
      .replaceAll('__FINALSTATE_SPEC__', `file:${path.relative(target, projectRoot).split(path.sep).join('/')}`)
      .replaceAll('__TYPESCRIPT_VERSION__', devDependencyOf('typescript'))
      .replaceAll('__TYPES_NODE_VERSION__', devDependencyOf('@types/node'));
  const written = files(PACK_TEMPLATE).map((file) => ({ from: file, to: RENAMED[file] ?? file }));
  for (const { from, to } of written) {
    const out = path.join(target, to);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, fill(fs.readFileSync(path.join(PACK_TEMPLATE, from), 'utf8')));
  }
  const modules = path.join(target, 'node_modules');
  fs.mkdirSync(modules, { recursive: true });
  fs.symlinkSync(path.relative(modules, projectRoot), path.join(modules, 'finalstate'), 'dir');
  return { dir: target, name, files: written.map((f) => f.to).sort() };
}

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

/**
 * Write a new pack into `dir` (absent or empty): the template with its names filled in, and node_modules/finalstate
 * linked to this installation, which is what `npm install` makes of the template's `file:` dependency. Nothing in
 * the finalstate checkout is written.
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
      .replaceAll('__FINALSTATE_ROOT__', projectRoot);
  const written = files(PACK_TEMPLATE);
  for (const file of written) {
    const out = path.join(target, file);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, fill(fs.readFileSync(path.join(PACK_TEMPLATE, file), 'utf8')));
  }
  fs.mkdirSync(path.join(target, 'node_modules'), { recursive: true });
  fs.symlinkSync(projectRoot, path.join(target, 'node_modules', 'finalstate'), 'dir');
  return { dir: target, name, files: written.sort() };
}

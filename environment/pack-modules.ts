import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UserError } from '../core/errors.js';
import { fromRoot } from '../core/paths.js';
import type { DomainPack } from './domain.js';

/** One external pack module to load: a path or package name, where it resolves from, and who named it. */
export interface PackSource {
  specifier: string;
  base: string;
  origin: string;
}

const isPath = (specifier: string) => /^(\.{1,2}[\\/]|\/|file:)/.test(specifier) || path.isAbsolute(specifier);

/** The entry file of a package's package.json: `exports` (".", then its import/default condition), else `main`, else index.js. */
function packageEntry(dir: string, pkg: { exports?: unknown; main?: string }): string {
  let target: unknown = pkg.exports;
  if (target && typeof target === 'object' && !Array.isArray(target) && '.' in target)
    target = (target as Record<string, unknown>)['.'];
  while (target && typeof target === 'object' && !Array.isArray(target)) {
    const conditions = target as Record<string, unknown>;
    target = conditions.import ?? conditions.node ?? conditions.default;
  }
  return path.join(dir, typeof target === 'string' ? target : (pkg.main ?? 'index.js'));
}

/**
 * Where a pack module is: a path resolves against `base`; a package name is looked up in `node_modules` from `base`
 * upwards, like Node does for the file that would import it there.
 */
export function resolvePackModule(source: PackSource): string {
  const { specifier, base } = source;
  if (isPath(specifier)) {
    const file = specifier.startsWith('file:') ? new URL(specifier).pathname : path.resolve(base, specifier);
    // A pack's directory (its package.json beside it) stands for the package's entry.
    const manifest = path.join(file, 'package.json');
    if (fs.existsSync(manifest) && fs.statSync(file).isDirectory())
      return packageEntry(file, JSON.parse(fs.readFileSync(manifest, 'utf8')) as { exports?: unknown; main?: string });
    return file;
  }
  const [scopeOrName, scopedName, ...subpath] = specifier.split('/');
  const name = scopeOrName!.startsWith('@') ? `${scopeOrName}/${scopedName}` : scopeOrName!;
  const rest = scopeOrName!.startsWith('@')
    ? subpath
    : [scopedName, ...subpath].filter((s): s is string => s !== undefined);
  for (let dir = path.resolve(base); ; dir = path.dirname(dir)) {
    const pkgDir = path.join(dir, 'node_modules', name);
    const manifest = path.join(pkgDir, 'package.json');
    if (fs.existsSync(manifest)) {
      if (rest.length) return path.join(pkgDir, ...rest);
      return packageEntry(
        pkgDir,
        JSON.parse(fs.readFileSync(manifest, 'utf8')) as { exports?: unknown; main?: string },
      );
    }
    if (path.dirname(dir) === dir) break;
  }
  throw new UserError(
    `${source.origin}: cannot find package ${JSON.stringify(specifier)} in node_modules from ${base} upwards (a path must start with ./, ../ or /)`,
  );
}

const looksLikePack = (value: unknown): value is DomainPack =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as DomainPack).name === 'string' &&
  Array.isArray((value as DomainPack).tools);

/** Import a pack module and return its packs: `export const domains = [...]`, or a default export of one pack or a list. */
export async function loadPackModule(source: PackSource): Promise<DomainPack[]> {
  const file = resolvePackModule(source);
  if (!fs.existsSync(file))
    throw new UserError(
      `${source.origin}: ${source.specifier} resolves to ${file}, which does not exist (is the pack built?)`,
    );
  let loaded: { domains?: unknown; default?: unknown };
  try {
    loaded = (await import(pathToFileURL(file).href)) as typeof loaded;
  } catch (err) {
    const hint = oldImportHint(err);
    throw new UserError(
      `${source.origin}: cannot load ${source.specifier} (${file}): ${(err as Error).message}${hint ? `\n${hint}` : ''}`,
    );
  }
  const exported = loaded.domains ?? loaded.default;
  const packs = Array.isArray(exported) ? exported : exported === undefined ? undefined : [exported];
  if (!packs || !packs.every(looksLikePack))
    throw new UserError(`${source.origin}: ${source.specifier} (${file}) does not export \`domains: DomainPack[]\``);
  return packs;
}

/** Where the table of old internal imports and their public names is, for pack authors. */
export const MIGRATION_DOC = 'docs/domain-packs.md#migrating-from-internal-imports';

/**
 * The internal modules that `finalstate/domain` re-exports, each with the names it gives (`dist/environment/domain.js`
 * -> DomainPack, ToolRejection, ...), read from the emitted declarations: the migration table of a pack written
 * against `finalstate/dist/...` imports. External modules (zod) appear under their own name.
 */
export function apiMigration(declarations = fromRoot('dist', 'domains', 'api.d.ts')): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const text = fs.readFileSync(declarations, 'utf8');
  for (const match of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g)) {
    const from = match[2]!;
    const module = from.startsWith('.') ? path.posix.join('dist/domains', from) : from;
    const names = match[1]!
      .split(',')
      .map((n) => n.trim().replace(/^type\s+/, ''))
      .filter(Boolean);
    table.set(module, [...(table.get(module) ?? []), ...names]);
  }
  return table;
}

/**
 * For a pack that imports a finalstate path its `exports` do not offer (a pack written against `finalstate/dist/...`):
 * what to import from `finalstate/domain` instead. Nothing for other errors.
 */
export function oldImportHint(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : '';
  const blocked = /Package subpath '\.\/([^']+)' is not defined by "exports" in \S*finalstate[\\/]package\.json/.exec(
    message,
  );
  if ((err as { code?: string }).code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED' || !blocked) return undefined;
  const subpath = blocked[1]!;
  let names: string[] | undefined;
  try {
    names = apiMigration().get(subpath);
  } catch {
    names = undefined;
  }
  const instead = names?.length
    ? `import { ${names.join(', ')} } from 'finalstate/domain'`
    : "import what the pack needs from 'finalstate/domain'";
  return `finalstate/${subpath} is internal: a pack imports only the public API finalstate/domain. Instead: ${instead}. Old imports and their public names: ${MIGRATION_DOC}`;
}

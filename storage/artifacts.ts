import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UserError } from '../core/errors.js';

/**
 * Where big data lives (training batches, frozen pools, metrics, checkpoints): workflows carry only the URIs.
 * Keys are relative paths such as "<campaignId>/step-3/batch.json".
 */
export interface ArtifactStore {
  /** The URI a key has (or will have) in this store. */
  uriOf(key: string): string;
  /** A local directory for writers that produce directories (checkpoints); created on demand. */
  directoryOf(key: string): Promise<string>;
  put(key: string, data: string | Uint8Array): Promise<string>;
  read(uri: string): Promise<Buffer>;
}

function checkedKey(key: string): string {
  const normalized = path.posix.normalize(key);
  if (normalized.startsWith('..') || path.posix.isAbsolute(normalized) || normalized === '.') {
    throw new UserError(`artifact store: key ${JSON.stringify(key)} must be a relative path inside the store`);
  }
  return normalized;
}

/** The default store: a local directory, with file:// URIs. */
export class LocalArtifactStore implements ArtifactStore {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    return path.join(this.root, ...checkedKey(key).split('/'));
  }

  uriOf(key: string): string {
    return pathToFileURL(this.pathOf(key)).href;
  }

  async directoryOf(key: string): Promise<string> {
    const dir = this.pathOf(key);
    await fs.mkdir(dir, { recursive: true });
    return dir;
  }

  /** Written to a temporary file and renamed, so a reader never sees half an artifact. */
  async put(key: string, data: string | Uint8Array): Promise<string> {
    const file = this.pathOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, file);
    return this.uriOf(key);
  }

  async read(uri: string): Promise<Buffer> {
    return fs.readFile(localPathOf(uri));
  }
}

/** The local path of a file:// URI or a plain path. */
export function localPathOf(uri: string): string {
  if (uri.startsWith('file://')) return fileURLToPath(uri);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri))
    throw new UserError(`artifact store: cannot read ${uri} (only file:// URIs and paths are supported)`);
  return path.resolve(uri);
}

import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { LoadedConfig } from '../schemas/config.js';
import { UserError } from '../core/errors.js';
import { readOrMakeSecret } from './secret-file.js';

/** Where the local cluster's superuser password lives: made at the first `dev up`, mode 0600 in a 0700 folder. */
export function superuserPasswordFile(dataPath: string): string {
  return path.join(dataPath, 'secrets', 'postgres-password');
}

/** The local cluster's superuser password, made now if the stack has none yet (`dev up` calls this). */
export function makeSuperuserPassword(dataPath: string): string {
  return readOrMakeSecret(superuserPasswordFile(dataPath), () => randomBytes(32).toString('hex'));
}

/**
 * The password every process of the project logs in to the local cluster with: the configured one
 * (`postgres.password`, FINALSTATE_PG_PASSWORD) when set, else the one `dev up` made for this data directory.
 */
export function superuserPassword(config: LoadedConfig): string {
  if (config.postgres.password !== undefined) return config.postgres.password;
  const file = superuserPasswordFile(config.dataPath);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new UserError(
      `postgres: no password for the local cluster's superuser: ${file} does not exist; run \`finalstate dev up\` (it makes it), or set postgres.password (FINALSTATE_PG_PASSWORD) or DATABASE_URL`,
    );
  }
}

import path from 'node:path';

/** Where the local cluster's superuser password lives: made at the first `dev up`, mode 0600 in a 0700 folder. */
export function superuserPasswordFile(dataPath: string): string {
  return path.join(dataPath, 'secrets', 'postgres-password');
}

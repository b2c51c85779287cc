import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../core/errors.js';
import type { OpenEnvTaskPart } from '../../schemas/openenv-task.js';

/** The bearer token of an OpenEnv task's server, read where its part says (never stored in the task); `who` names it. */
export function readOpenEnvToken(part: Pick<OpenEnvTaskPart, 'url' | 'token'>, who: string): string | undefined {
  if (!part.token) return undefined;
  if (part.token.from === 'env') {
    const value = process.env[part.token.name]?.trim();
    if (!value)
      throw new UserError(
        `${who}: the OpenEnv server ${part.url} wants a bearer token from environment variable ${part.token.name}, which is not set here`,
      );
    return value;
  }
  const file = path.resolve(part.token.path);
  try {
    const value = fs.readFileSync(file, 'utf8').trim();
    if (value) return value;
  } catch {
    // named below
  }
  throw new UserError(
    `${who}: the OpenEnv server ${part.url} wants a bearer token from ${file}, which is missing or empty`,
  );
}

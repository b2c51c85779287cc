import fs from 'node:fs';
import type { z } from 'zod';
import { UserError } from '../core/errors.js';

/**
 * Read a JSON config file and validate it; every problem is reported with the file and the field path. `complete`
 * may fill in the raw object first (what a command-line option decides), before validation.
 */
export function readJsonConfig<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string,
  complete?: (raw: unknown) => unknown,
): z.infer<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(
      `${what} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file does not exist' : `not valid JSON: ${(err as Error).message}`}`,
    );
  }
  if (complete) raw = complete(raw);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new UserError(`${what} ${file}: invalid\n${lines.join('\n')}`);
  }
  return parsed.data;
}

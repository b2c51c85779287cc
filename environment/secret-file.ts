import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * A secret of the stack kept in a file of its own under the data directory, made on first use by `make` (mode 0600
 * in a 0700 folder). Two processes racing to make it agree: each writes a temporary file and links it into place, and
 * the loser reads the winner's. Returns the file's content, trimmed.
 */
export function readOrMakeSecret(file: string, make: () => string): string {
  const read = () => fs.readFileSync(file, 'utf8').trim();
  if (fs.existsSync(file)) return read();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(temp, `${make()}\n`, { mode: 0o600 });
  try {
    fs.linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  return read();
}

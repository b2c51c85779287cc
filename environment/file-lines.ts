import fs from 'node:fs';

/** One line of a file (1-based), or the length of a line too long to hold. */
export type FileLine = { line: number; text: string } | { line: number; overLimitBytes: number };

const CHUNK_BYTES = 1 << 20;

/**
 * The lines of a file, read a chunk at a time (synchronously, so that callers stay synchronous), never holding the
 * file whole: a line over `maxLineBytes` is skipped as it streams past and reported by its length. Lines are split
 * on LF as bytes, so a multi-byte character cut by a chunk boundary decodes whole.
 */
export function* fileLines(file: string, maxLineBytes: number): Generator<FileLine> {
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let parts: Buffer[] = [];
    let held = 0;
    let skipped = 0;
    let line = 1;
    const append = (bytes: Buffer) => {
      if (skipped) skipped += bytes.length;
      else if (held + bytes.length > maxLineBytes) {
        skipped = held + bytes.length;
        parts = [];
        held = 0;
      } else if (bytes.length) {
        parts.push(Buffer.from(bytes));
        held += bytes.length;
      }
    };
    const emit = (): FileLine => {
      const out: FileLine = skipped
        ? { line, overLimitBytes: skipped }
        : { line, text: Buffer.concat(parts, held).toString('utf8') };
      parts = [];
      held = 0;
      skipped = 0;
      line++;
      return out;
    };
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      const bytes = chunk.subarray(0, n);
      let from = 0;
      for (let nl = bytes.indexOf(10, from); nl >= 0; nl = bytes.indexOf(10, from)) {
        append(bytes.subarray(from, nl));
        yield emit();
        from = nl + 1;
      }
      append(bytes.subarray(from));
    }
    if (held || skipped) yield emit();
  } finally {
    fs.closeSync(fd);
  }
}

/** A size for error messages, in binary units like the limits it is compared with. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) ? 1 : 0)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(bytes % 1024 ? 1 : 0)} KiB`;
  return `${bytes} bytes`;
}

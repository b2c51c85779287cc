/**
 * The JSON text of `value` as the control database stores it (episode records, result rows): readable by every
 * PostgreSQL reader, whatever strings it holds.
 *
 * A model can write anything into its tool arguments and text: a NUL (a byte-level tokenizer samples 0x00, or the
 * model writes the escape `\u0000`) or a lone surrogate (the escape `"\ud800"`, which JSON.parse accepts). JSON.stringify
 * writes both as `\u` escapes, and a json column stores them as written, but PostgreSQL's json operators and the jsonb
 * cast refuse them ("unsupported Unicode escape sequence", "invalid input syntax for type json") whichever field a
 * query asks for, so one such record would break every query over its table. Both are written as U+FFFD instead, the
 * character a decoder puts where it cannot decode. Nothing else changes: paired surrogates (emoji) are written as the
 * characters themselves, and an escaped backslash followed by "u0000" is text, kept as it is. What the model sampled is
 * kept exactly in its token trajectory (artifact store), which is what training reads.
 */
export function readableJson(value: unknown): string {
  return JSON.stringify(value).replace(ESCAPE, (escape, unreadable?: string) => (unreadable ? '\\ufffd' : escape));
}

/**
 * Every escape sequence of JSON.stringify's output, left to right, so that a backslash is matched with the one it
 * escapes; group 1 is set for the unreadable ones. JSON.stringify writes `\u` escapes in lower case, and a surrogate
 * as an escape only when it is lone (a pair is written as its character).
 */
const ESCAPE = /\\(?:u(0000|d[89a-f][0-9a-f]{2})|.)/g;

/**
 * C0 and C1 control characters other than newline and tab: a terminal acts on them (clears the screen, retitles the
 * window, moves the cursor) instead of printing them, and a NUL makes tools like grep take the output for binary.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** A control character as its JSON escape (`\u001b`, `\r`), so that it is seen, not obeyed. */
const escapeControl = (c: string) => {
  const json = JSON.stringify(c).slice(1, -1);
  return json === c ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : json;
};

/** Text for a terminal that may hold what a model wrote: every control character but newline and tab escaped. */
export function printable(text: string): string {
  return text.replace(CONTROL, escapeControl);
}

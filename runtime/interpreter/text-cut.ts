/** The first `max` UTF-16 units of `text`, one fewer where the cut would split a surrogate pair. */
export function textPrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max);
}

/**
 * A number as Python writes it (`repr`, `json.dumps`, `str`): the same shortest digits as JavaScript, but non-integers
 * below 1e-4 in scientific notation with an exponent of at least two digits (`1e-05`, `1e-07`, `2.5e-10`) where
 * JavaScript writes `0.00001` and `1e-7`. Integers are written in full, as Python writes the int that JSON text
 * without a fraction becomes; from 1e21 on both write `1e+21`.
 */
export function pythonNumber(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (Number.isInteger(value) || Math.abs(value) >= 1e-4) return JSON.stringify(value);
  const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa}e${sign}${exponent.replace(/^[-+]/, '').padStart(2, '0')}`;
}

/**
 * JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it (", " and ": " separators, no indentation, numbers
 * as `pythonNumber`). Qwen's chat templates serialise tools and tool-call arguments with Jinja's `tojson`, which is
 * that function; rendering the same bytes keeps our prompts identical to the ones the model was trained on.
 */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => pythonJson(item === undefined ? null : item)).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
  }
  if (typeof value === 'number') return pythonNumber(value);
  return JSON.stringify(value) ?? 'null';
}

/**
 * A value as Jinja's `string` filter writes it, i.e. Python's `str()` of the value JSON decoding gives: strings as
 * they are, `True`/`False`/`None`, numbers as `pythonNumber`, lists and dicts as Python's repr (`['a', 'b']`).
 */
export function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  return pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'string') return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v)}`).join(', ')}}`;
}

/** Python's repr of a str: single quotes unless the text holds a single quote and no double quote. */
function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/**
 * JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it (", " and ": " separators, no indentation). Qwen's
 * chat template serialises tools and tool-call arguments with Jinja's `tojson`, which is that function; rendering
 * the same bytes keeps our prompts identical to the ones the model was trained on.
 */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => pythonJson(item === undefined ? null : item)).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

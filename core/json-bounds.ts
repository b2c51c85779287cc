/**
 * Size and nesting bounds of JSON values that come from outside (a model's tool-call arguments, an MCP client's
 * request). Measured iteratively, so a value nested a million deep costs a loop, never the call stack that
 * JSON.stringify, structuredClone and every recursive walk would overflow.
 */
export interface JsonBounds {
  /** Most UTF-8 bytes of the value written as compact JSON (escapes not counted). */
  maxBytes: number;
  /** Most levels of objects and arrays: `{}` is 1, `{"a": []}` is 2, a string or number is 0. */
  maxDepth: number;
}

export type JsonBoundsExcess = { kind: 'bytes'; atLeast: number } | { kind: 'depth'; atLeast: number };

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** The first bound `value` exceeds, or undefined. Stops as soon as one is passed. */
export function exceedsJsonBounds(value: unknown, bounds: JsonBounds): JsonBoundsExcess | undefined {
  let bytes = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: item, depth } = stack.pop()!;
    if (typeof item === 'string') bytes += utf8Bytes(item) + 2;
    else if (typeof item === 'number' || typeof item === 'boolean' || item === null) bytes += String(item).length;
    else if (typeof item === 'object') {
      if (depth + 1 > bounds.maxDepth) return { kind: 'depth', atLeast: depth + 1 };
      if (Array.isArray(item)) {
        bytes += 2 + Math.max(0, item.length - 1);
        for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], depth: depth + 1 });
      } else {
        const entries = Object.entries(item as Record<string, unknown>);
        bytes += 2 + Math.max(0, entries.length - 1);
        for (let i = entries.length - 1; i >= 0; i--) {
          bytes += utf8Bytes(entries[i]![0]) + 3;
          stack.push({ value: entries[i]![1], depth: depth + 1 });
        }
      }
    }
    if (bytes > bounds.maxBytes) return { kind: 'bytes', atLeast: bytes };
  }
  return undefined;
}

/** "65,536 bytes (64 KiB)": a byte count as people read it. */
export function describeBytes(bytes: number): string {
  const kib = bytes / 1024;
  return `${bytes.toLocaleString('en-US')} bytes${Number.isInteger(kib) ? ` (${kib} KiB)` : ''}`;
}

/**
 * Bounds of one tool call's arguments, wherever they come from: the interpreter refuses a model's call over them as a
 * parse failure (`oversized_call`), the tool executor refuses an MCP client's. Domain tools take ids, amounts and a
 * few lines of text, nested a level or two; 64 KiB and 32 levels leave room for any honest call and keep every
 * serialisation of one (checkpoint, record, trajectory) far from the call stack's depth and PostgreSQL's limits.
 */
export const TOOL_ARGUMENT_BOUNDS: JsonBounds = { maxBytes: 65_536, maxDepth: 32 };

/** What a bounds excess says to whoever sent the arguments. */
export function describeJsonExcess(excess: JsonBoundsExcess, bounds: JsonBounds): string {
  return excess.kind === 'depth'
    ? `the arguments are nested deeper than ${bounds.maxDepth} levels; at most ${bounds.maxDepth} are accepted`
    : `the arguments are ${describeBytes(excess.atLeast)} of JSON or more; at most ${describeBytes(bounds.maxBytes)} are accepted`;
}

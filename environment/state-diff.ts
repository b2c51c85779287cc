import type { StateDiffEntry } from '../schemas/grading.js';
import type { StateSnapshot } from './snapshot.js';
import { canonicalJson } from './canonical.js';

/**
 * Compare the actual final state with the expected one, row by primary key. `initial` (the state before the episode)
 * tells a deletion the solution never asked for (deleted_row) from an insert that never happened (missing_row).
 */
export function diffStates(
  expected: StateSnapshot,
  actual: StateSnapshot,
  initial: StateSnapshot,
  primaryKeys: Record<string, string[]>,
): StateDiffEntry[] {
  const diff: StateDiffEntry[] = [];
  const tables = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
  for (const table of tables) {
    const exp = expected[table] ?? {};
    const act = actual[table] ?? {};
    const pk = primaryKeys[table] ?? [];
    const named = (key: string) =>
      Object.fromEntries((JSON.parse(key) as unknown[]).map((v, i) => [pk[i] ?? `key${i}`, v]));
    for (const key of [...new Set([...Object.keys(exp), ...Object.keys(act)])].sort()) {
      const e = exp[key];
      const a = act[key];
      if (e && !a) {
        const existedBefore = initial[table]?.[key] !== undefined;
        diff.push({ kind: existedBefore ? 'deleted_row' : 'missing_row', table, key: named(key), expected: e });
      } else if (a && !e) {
        diff.push({ kind: 'unexpected_row', table, key: named(key), actual: a });
      } else if (a && e) {
        for (const column of [...new Set([...Object.keys(e), ...Object.keys(a)])].sort()) {
          if (canonicalJson(e[column]) !== canonicalJson(a[column])) {
            diff.push({
              kind: 'changed_value',
              table,
              key: named(key),
              column,
              expected: e[column] ?? null,
              actual: a[column] ?? null,
            });
          }
        }
      }
    }
  }
  return diff;
}

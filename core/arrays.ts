/**
 * `target.push(...items)` for lists of any length. A spread passes every item as an argument, on the call stack,
 * which about 125,000 items overflow (`RangeError: Maximum call stack size exceeded`): model output and token
 * trajectories reach that.
 */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (let i = 0; i < items.length; i++) target.push(items[i]!);
}

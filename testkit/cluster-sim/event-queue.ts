/** Timed actions of a discrete-event simulation, run in time order; actions at the same time run in the order added. */
export class EventQueue {
  private readonly heap: { time: number; order: number; action: (now: number) => void }[] = [];
  private added = 0;

  at(time: number, action: (now: number) => void): void {
    const heap = this.heap;
    heap.push({ time, order: this.added++, action });
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  /** The time of the next action; Infinity when none is left. */
  nextTime(): number {
    return this.heap[0]?.time ?? Infinity;
  }

  /** Removes the next action and runs it at its time. */
  runNext(): void {
    const heap = this.heap;
    const first = heap[0];
    if (!first) throw new Error('event queue: nothing to run');
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && this.before(left, smallest)) smallest = left;
        if (right < heap.length && this.before(right, smallest)) smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
        i = smallest;
      }
    }
    first.action(first.time);
  }

  private before(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.time < y.time || (x.time === y.time && x.order < y.order);
  }
}

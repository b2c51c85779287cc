/**
 * A small seeded PRNG (mulberry32) for task generators: the same seed always yields the same tasks.
 * Generators never call Math.random.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Derive a PRNG from any list of parts (e.g. seed, split, profile, index), hashed with FNV-1a. */
  static from(...parts: (string | number)[]): Prng {
    let hash = 0x811c9dc5;
    for (const ch of parts.join('\u0000')) {
      hash ^= ch.codePointAt(0)!;
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    return new Prng(hash);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Prng.pick: empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

/**
 * Dropping a database is slow (it terminates its backends, removes its files and logs the drop), and nobody needs
 * to wait for it once the episode's connections are closed. Drops run here in the background, one at a time; a
 * provision of the same name waits for a pending drop of it first, and `flush()` waits for all of them.
 */
export class DropQueue {
  private tail: Promise<void> = Promise.resolve();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly failures: Error[] = [];

  enqueue(name: string, drop: () => Promise<void>): Promise<void> {
    const run = this.tail.then(drop).catch((err: Error) => {
      this.failures.push(err);
    });
    this.tail = run;
    this.pending.set(name, run);
    void run.finally(() => {
      if (this.pending.get(name) === run) this.pending.delete(name);
    });
    return run;
  }

  /**
   * Waits while more than `max` drops are pending, so a fast producer (verify, a large step) cannot outrun the drops
   * and fill the disk with torn-down databases.
   */
  async backpressure(max: number): Promise<void> {
    while (this.pending.size > max) await Promise.race(this.pending.values());
  }

  /** Resolves once a pending drop of this name (if any) is done. */
  async settled(name: string): Promise<void> {
    await this.pending.get(name);
  }

  /** Wait for every queued drop; rethrows the first failure (a leaked database the janitor would otherwise find). */
  async flush(): Promise<void> {
    await this.tail;
    const failure = this.failures.shift();
    if (failure) throw failure;
  }
}

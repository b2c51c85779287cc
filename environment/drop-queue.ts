/**
 * Dropping a database is slow (it terminates its backends, removes its files and logs the drop), and nobody needs
 * to wait for it once the episode's connections are closed; nor for the reset that replaces it when the database is
 * reused. These jobs run here in the background, `concurrency` at a time; a provision of the same name waits for a
 * pending job of it first, and `flush()` waits for all of them.
 */
export class DropQueue {
  private readonly all = new Set<Promise<void>>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly failures: Error[] = [];
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly concurrency = 1) {}

  enqueue(name: string, drop: () => Promise<void>): Promise<void> {
    const run = this.slot()
      .then(drop)
      .catch((err: Error) => {
        this.failures.push(err);
      })
      .finally(() => this.release());
    this.all.add(run);
    this.pending.set(name, run);
    void run.finally(() => {
      this.all.delete(run);
      if (this.pending.get(name) === run) this.pending.delete(name);
    });
    return run;
  }

  private async slot(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve)); // the slot is handed over by release()
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  /**
   * Waits while more than `max` jobs are pending, so a fast producer (verify, a large step) cannot outrun the drops
   * and fill the disk with torn-down databases.
   */
  async backpressure(max: number): Promise<void> {
    while (this.pending.size > max) await Promise.race(this.pending.values());
  }

  /** Resolves once a pending job of this name (if any) is done. */
  async settled(name: string): Promise<void> {
    await this.pending.get(name);
  }

  /** Wait for every queued job; rethrows the first failure (a leaked database the janitor would otherwise find). */
  async flush(): Promise<void> {
    while (this.all.size) await Promise.all([...this.all]);
    const failure = this.failures.shift();
    if (failure) throw failure;
  }
}

/**
 * A security probe tries one kind of attack or bad input against the real stack and says what happened.
 * Every module in `test/security/probes/` default-exports an array of probes; `test/security/run.ts` runs them all,
 * prints the table for docs/reliability.md, and `security.test.ts` fails when any attempt was not held.
 */
export interface ProbeResult {
  /** What was tried, in a few words: "episode A's role connects to episode B's database". */
  attempt: string;
  /** What happened, as observed: the error text, or what was read or written. */
  outcome: string;
  /** True when the attempt was denied or got a clear error naming what and where, with nothing lost. */
  held: boolean;
  /**
   * The attempt was not made here (the outcome says why: not root, a server that is not ours): neither held nor got
   * through. The table says "skipped", the command counts it apart, and the test is reported skipped.
   */
  skipped?: boolean;
}

export interface SecurityProbe {
  /** The table's grouping: "cross-episode", "sql-injection", "mcp-http", "task-files", "model-output", ... */
  area: string;
  name: string;
  run(): Promise<ProbeResult[]>;
}

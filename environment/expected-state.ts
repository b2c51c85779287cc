import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { UserError } from '../core/errors.js';
import type { AssertionOutcome } from '../schemas/grading.js';
import { checkAssertions } from './sql-assertions.js';
import type { Task } from '../schemas/task.js';
import { contentHash } from './canonical.js';
import type { EnvironmentBackend } from './backend.js';
import { taskSha256 } from './task-set.js';
import { takeSnapshot, snapshotHash, type StateSnapshot } from './snapshot.js';
import { EpisodeToolExecutor } from './tool-executor.js';
import { domainContentHash } from './template.js';

/** Bump when snapshots or replay change meaning, so cached expected states are recomputed. */
const EXPECTED_STATE_VERSION = 3;

export interface ExpectedState {
  taskId: string;
  taskSha256: string;
  /** The state before any call: seed plus init. */
  initial: StateSnapshot;
  /** The state after the golden calls. */
  expected: StateSnapshot;
  expectedSha256: string;
  golden: { tool: string; result: unknown }[];
  /** The task's SQL assertions on the golden final state (each must hold, or the task is wrong). */
  assertions: z.infer<typeof AssertionOutcome>[];
}

/** A golden call failed: the task is wrong. Reported at validation, never swallowed. */
export class GoldenCallError extends UserError {
  override name = 'GoldenCallError';
  constructor(
    readonly taskId: string,
    readonly callIndex: number,
    readonly tool: string,
    readonly reason: string,
  ) {
    super(`task ${taskId}: golden[${callIndex}] (${tool}) failed: ${reason}`);
  }
}

let replayCounter = 0;

/**
 * Expected states, computed by replaying a task's golden calls through the same tools on a fresh backend with the
 * same init, and cached per content hash (task, domain pack, grading policy) in memory and on disk.
 */
export class ExpectedStates {
  private readonly memory = new Map<string, Promise<ExpectedState>>();
  readonly cacheDir: string;
  /** Replays actually run by this process (cache misses), for tests and the benchmark. */
  computed = 0;

  constructor(
    readonly backend: EnvironmentBackend,
    cacheDir?: string,
    /** Expected states kept in memory (least recently used dropped first); the disk cache keeps them all. */
    readonly memoryEntries = 256,
  ) {
    this.cacheDir = cacheDir ?? path.join(backend.config.dataPath, 'environment', 'expected-states');
  }

  cacheKey(task: Task): string {
    const domain = this.backend.registry.get(task.domain);
    return contentHash({
      version: EXPECTED_STATE_VERSION,
      task: taskSha256(task),
      domain: domainContentHash(domain),
      grading: domain.grading,
      tools: domain.profileTools[task.profile],
    });
  }

  cacheFile(task: Task): string {
    return path.join(this.cacheDir, task.domain, `${this.cacheKey(task)}.json`);
  }

  get(task: Task): Promise<ExpectedState> {
    const key = this.cacheKey(task);
    let pending = this.memory.get(key);
    if (pending)
      this.memory.delete(key); // re-inserted below: the map's order is least recently used first
    else {
      pending = this.load(task);
      pending.catch(() => this.memory.delete(key));
    }
    this.memory.set(key, pending);
    while (this.memory.size > this.memoryEntries) this.memory.delete(this.memory.keys().next().value!);
    return pending;
  }

  private async load(task: Task): Promise<ExpectedState> {
    const file = this.cacheFile(task);
    if (fs.existsSync(file)) {
      try {
        return JSON.parse(fs.readFileSync(file, 'utf8')) as ExpectedState;
      } catch {
        // a torn or corrupt cache file is recomputed below
      }
    }
    const state = await this.compute(task);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(state));
    fs.renameSync(tmp, file);
    return state;
  }

  /** Replay the golden calls on a fresh backend; a call that errors throws GoldenCallError. */
  async compute(task: Task): Promise<ExpectedState> {
    this.computed++;
    const episodeId = `golden-${task.id}-${process.pid}-${++replayCounter}`;
    const episode = await this.backend.provision(episodeId, task);
    try {
      const snapshot = () =>
        this.backend.transaction(episode, (c) => takeSnapshot(c, episode.domain, episode.catalog), 'BEGIN READ ONLY');
      const initial = await snapshot();
      const executor = new EpisodeToolExecutor(this.backend, episode);
      const golden: ExpectedState['golden'] = [];
      for (const [i, call] of task.golden.entries()) {
        let outcome;
        try {
          outcome = await executor.call(call.tool, call.arguments);
        } catch (err) {
          if (err instanceof Error && err.name === 'ToolFault')
            throw new GoldenCallError(task.id, i, call.tool, err.message);
          throw err;
        }
        if (outcome.isError) throw new GoldenCallError(task.id, i, call.tool, outcome.message);
        golden.push({ tool: call.tool, result: outcome.result });
      }
      const { expected, assertions } = await this.backend.transaction(
        episode,
        async (c) => ({
          expected: await takeSnapshot(c, episode.domain, episode.catalog),
          assertions: await checkAssertions(c, task.assertions, task.id),
        }),
        'BEGIN READ ONLY',
      );
      return {
        taskId: task.id,
        taskSha256: episode.taskSha256,
        initial,
        expected,
        expectedSha256: snapshotHash(expected),
        golden,
        assertions,
      };
    } finally {
      await this.backend.teardown(episode);
    }
  }
}

import type { ArtifactStore } from '../../storage/artifacts.js';
import { InfrastructureError, UserError } from '../../core/errors.js';
import type { EpisodeHooks, EpisodeRunner } from '../../runtime/episode/runner.js';
import type { EpisodeOutcome, EpisodeRequest } from '../../schemas/episode.js';
import type { TaskInfo } from '../../schemas/pipeline.js';
import type { Trajectory } from '../../schemas/trajectory.js';
import { seededRandom, subSeed } from '../../stats/random.js';

/**
 * TEST-ONLY STAND-IN for the agent loop, until the lead wires the real EpisodeRunner (runtime, environment, MCP,
 * grading). It runs no model and touches no episode database: the reward of an episode is a draw from a seeded RNG
 * keyed by the episode id (so a retried attempt gets the same reward) with the task's success rate. It calls onTurn
 * `turns` times, writes a tiny token trajectory to the artifact store (so buildBatch has something to read; a failed
 * episode's trajectory ends with a turn cut off at the token limit), and can be told to throw InfrastructureError for
 * given episodes and attempts, to simulate outages.
 */
export interface SeededRandomRunnerOptions {
  /**
   * Each task's success rate; `trainedSuccessRate`, when given, replaces it for every policy version after the base
   * (a task the training made easier or harder, so that a re-probe sees it move); `referenceSuccessRate` replaces it
   * for a chat policy (a reference probe's).
   */
  tasks: ReadonlyMap<
    string,
    TaskInfo & { successRate: number; trainedSuccessRate?: number; referenceSuccessRate?: number }
  >;
  artifacts: ArtifactStore;
  seed?: number;
  turns?: number;
  turnDelayMs?: number;
  /** Task id -> extra ms each of its turns takes (a straggler task). */
  taskTurnDelayMs?: Map<string, number>;
  /** Episode id -> how many attempts fail with InfrastructureError before one succeeds (Infinity: every attempt). */
  outages?: Map<string, number>;
  /** Task ids whose episodes throw UserError (a malformed task). */
  malformed?: Set<string>;
  /** Skip the trajectory file (for the orchestration benchmark's baseline of nothing but the runner). */
  withoutTrajectory?: boolean;
  /**
   * The version the policy server serves now, read at each turn and recorded as the version that sampled it (the
   * real client records what the server reports): asynchronous steps, where a publish lands between two turns.
   */
  servedVersion?: () => string;
  /** Episode id -> the version every turn of it records instead (a turn older than the step's window). */
  turnVersions?: Map<string, string>;
}

export class SeededRandomEpisodeRunner implements EpisodeRunner {
  /** Attempts per episode id, failed ones included. */
  readonly attempts = new Map<string, number>();
  readonly turnsReported = new Map<string, number>();

  constructor(private readonly options: SeededRandomRunnerOptions) {}

  async run(request: EpisodeRequest, hooks: EpisodeHooks = {}): Promise<EpisodeOutcome> {
    const attempt = (this.attempts.get(request.episodeId) ?? 0) + 1;
    this.attempts.set(request.episodeId, attempt);
    const task = this.options.tasks.get(request.taskId);
    if (!task || this.options.malformed?.has(request.taskId))
      throw new UserError(`task ${request.taskId} is malformed (seeded random runner)`);
    const failing = this.options.outages?.get(request.episodeId) ?? 0;
    if (attempt <= failing)
      throw new InfrastructureError(`simulated outage for ${request.episodeId}, attempt ${attempt}`, 'simulated');
    const turnVersions: string[] = [];
    for (let turn = 1; turn <= (this.options.turns ?? 2); turn++) {
      turnVersions.push(this.options.turnVersions?.get(request.episodeId) ?? this.options.servedVersion?.() ?? '');
      const delay = (this.options.turnDelayMs ?? 0) + (this.options.taskTurnDelayMs?.get(request.taskId) ?? 0);
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      hooks.signal?.throwIfAborted();
      hooks.onTurn?.(turn);
      this.turnsReported.set(request.episodeId, turn);
    }
    // Keyed by the episode id without its campaign prefix: retries, and runs of the same scenario under fresh campaign
    // ids, see the same rewards, so tests are deterministic.
    const key =
      request.campaignId && request.episodeId.startsWith(request.campaignId)
        ? request.episodeId.slice(request.campaignId.length)
        : request.episodeId;
    const version =
      request.policy.kind === 'served'
        ? (request.policy.version ?? 'base')
        : request.policy.kind === 'chat'
          ? 'reference'
          : 'oracle';
    const rate =
      version === 'reference'
        ? (task.referenceSuccessRate ?? task.successRate)
        : version !== 'base' && version !== 'oracle'
          ? (task.trainedSuccessRate ?? task.successRate)
          : task.successRate;
    const reward = seededRandom(subSeed(this.options.seed ?? 0, key))() < rate ? 1 : 0;
    // The first turn's version samples the first segment, the last turn's the rest.
    const sampledBy = [turnVersions[0] || version, turnVersions[turnVersions.length - 1] || version];
    const versions = [...new Set(sampledBy)];
    let trajectoryUri: string | undefined;
    if (!this.options.withoutTrajectory) {
      // A failed episode ends with a turn cut off by the token limit, as failing tiny policies often do.
      const truncated = reward === 0;
      const trajectory: Trajectory = {
        tokenIds: [1, 10 + reward, 2, ...(truncated ? [3, 4] : [])],
        lossMask: [0, 1, 1, ...(truncated ? [1, 1] : [])],
        rolloutLogprobs: [0, -0.5, -0.25, ...(truncated ? [-2, -3] : [])],
        segments: [
          { kind: 'observation', start: 0, end: 1, textStart: 0, textEnd: 1 },
          {
            kind: 'sample',
            start: 1,
            end: 3,
            textStart: 1,
            textEnd: 3,
            policyVersion: sampledBy[0],
            finishReason: 'stop',
          },
          ...(truncated
            ? [
                {
                  kind: 'sample' as const,
                  start: 3,
                  end: 5,
                  textStart: 3,
                  textEnd: 5,
                  policyVersion: sampledBy[1],
                  finishReason: 'length' as const,
                },
              ]
            : []),
        ],
        policyVersions: versions,
        drift: null,
        trainable: true,
      };
      trajectoryUri = await this.options.artifacts.put(
        `${request.episodeId}/trajectory.json`,
        JSON.stringify(trajectory),
      );
    }
    const usage = { inputTokens: 100, cachedInputTokens: 0, outputTokens: 20 };
    return {
      episodeId: request.episodeId,
      taskId: task.taskId,
      domain: task.domain,
      split: task.split,
      trial: request.trial,
      tags: task.tags,
      reward,
      error: null,
      usage: { agent: usage, user: usage, judge: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 } },
      costUsd: 0.001,
      ...(request.campaignId ? { campaignId: request.campaignId } : {}),
      ...(request.step !== undefined ? { step: request.step } : {}),
      policyVersion: versions.join(','),
      finishReason: 'agent_done',
      ...(trajectoryUri ? { trajectoryUri } : {}),
      trainable: true,
    };
  }
}

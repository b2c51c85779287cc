import { ChatAgentPolicy } from '../policy/chat-policy.js';
import type pg from 'pg';
import type { EnvironmentBackend } from '../../environment/backend.js';
import type { Trajectory } from '../../schemas/trajectory.js';
import type { ExpectedStates } from '../../environment/expected-state.js';
import type { ArtifactStore } from '../../storage/artifacts.js';
import { InfrastructureError, UserError } from '../../core/errors.js';
import { EpisodeOutcome, EpisodeRecord, type EpisodeRequest } from '../../schemas/episode.js';
import { chatFamily, DEFAULT_CHAT_FAMILY } from '../../schemas/clients.js';
import { servedFingerprintUri } from '../../schemas/policy-api.js';
import type { Task } from '../../schemas/task.js';
import { ChatClient } from '../clients/chat-client.js';
import { LlmUserSimulator } from '../clients/llm-user.js';
import { PolicyClient } from '../clients/policy-client.js';
import { ScriptedUserSimulator } from '../clients/scripted-user.js';
import type { UserSimulator } from '../clients/user-simulator.js';
import type { EpisodePricing } from '../cost/cost-model.js';
import { getRenderer } from '../interpreter/index.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import { CompletionsAgentPolicy } from '../policy/completions-policy.js';
import { OraclePolicy } from '../policy/oracle-policy.js';
import type { FleetRouter, ServerLease } from '../fleet/router.js';
import { episodeSummaryLine } from './audit/summary-line.js';
import { restorePolicy, turnCheckpoint } from './checkpoint.js';
import type { EnvironmentTools, EpisodeEnvironment, OpenEnvironment } from './environment.js';
import { PostgresEnvironment } from './environments/postgres.js';
import type { EpisodeHooks, EpisodeRunner } from './runner.js';
import { EpisodeStore } from './episode-store.js';
import { runAgentLoop, type LoopResult } from './loop.js';
import type { EpisodeScore } from './scoring.js';
import type { TaskCatalog } from './task-catalog.js';

export interface EpisodeRunnerDeps {
  backend: EnvironmentBackend;
  expectedStates: ExpectedStates;
  tasks: TaskCatalog;
  artifacts: ArtifactStore;
  /** Control database: episode records. */
  control: pg.Pool;
  /** Prices each episode's usage (the worker's price table). */
  price: EpisodePricing;
  /** Builds the agent policy of an episode (default: the request's served model or the oracle). */
  policyFor?: PolicyFactory;
  /** Leave each finished episode's database in place for inspection (the janitor drops it after its TTL). */
  keepEpisodeDatabases?: boolean;
  /** The worker's view of the rollout fleet, which picks the server of each served episode's attempt. */
  servers: Pick<FleetRouter, 'leaseFor'>;
  /** Environments besides the PostgreSQL one (ThinkingBox's, OpenEnv's), each playing the tasks of its format. */
  environments?: EpisodeEnvironment[];
}

/** Builds an episode's agent policy; a served one is sampled from `server`, the rollout server the fleet chose. */
export type PolicyFactory = (request: EpisodeRequest, task: Task, server?: ServerLease) => AgentPolicy;

export function policyFor(request: EpisodeRequest, task: Task, server?: ServerLease): AgentPolicy {
  // The oracle writes its calls in the default format: its episodes demonstrate the tiny base model's (qwen3) format.
  if (request.policy.kind === 'oracle')
    return new OraclePolicy(task, getRenderer(DEFAULT_CHAT_FAMILY), request.policy.calls);
  if (request.policy.kind === 'chat')
    return new ChatAgentPolicy(new ChatClient(request.policy.endpoint, 'chat-policy'));
  const { client, version, minVersion, checkpointUri, adapterPrefix } = request.policy;
  return new CompletionsAgentPolicy(
    new PolicyClient(server ? { ...client, baseUrl: server.server.url, serverKind: server.server.kind } : client, {
      ...(version === undefined ? {} : { policyVersion: version }),
      ...(version === undefined || minVersion === undefined ? {} : { minVersion }),
      ...(checkpointUri === undefined || adapterPrefix !== undefined
        ? {}
        : { fingerprintUri: servedFingerprintUri(checkpointUri) }),
      ...(adapterPrefix === undefined ? {} : { adapterPrefix }),
      ...(server ? { reports: server } : {}),
    }),
    getRenderer(chatFamily(client)),
    { seed: request.seed },
  );
}

/** The runner's user simulator for a request: the deterministic one, or an LLM's. */
export function userFor(request: EpisodeRequest, task: Task): UserSimulator {
  if (request.user.kind === 'scripted') return new ScriptedUserSimulator(task);
  return new LlmUserSimulator(new ChatClient(request.user.endpoint, 'user-simulator'), task);
}

/** What playing an episode leaves for scoring and storing. */
interface Played {
  loop: LoopResult;
  policy: AgentPolicy;
  tools: EnvironmentTools;
  trajectory: Trajectory | null;
  resumedAt: number[];
  /** The rollout servers that served the policy, in order (empty for a policy that is not served). */
  servers: string[];
  mcpSessionMs: number;
}

/**
 * The episode runtime used unchanged by evaluation and training: open a fresh backend (reattached on a retried
 * attempt), play the conversation (the domain's tools over MCP, the agent loop with the simulated user), score it
 * (runtime/episode/scoring.ts, the one place a reward is decided), store the token trajectory in the artifact store
 * and the record in the control database.
 *
 * Resume, not restart: after every completed turn the loop's state, the policy's state (token trajectory, sampling
 * turn) and the tool calls so far are checkpointed into the episode database. A retried attempt that reattaches to
 * that database restores the checkpoint and continues with the next turn; a call of a turn that was cut off before
 * its checkpoint carries the index it had, and is answered from its record instead of running again.
 */
export class DatabaseEpisodeRunner implements EpisodeRunner {
  private readonly store: EpisodeStore;
  private readonly environments: EpisodeEnvironment[];

  constructor(private readonly deps: EpisodeRunnerDeps) {
    this.store = new EpisodeStore(deps.control);
    this.environments = [...(deps.environments ?? []), new PostgresEnvironment(deps.backend, deps.expectedStates)];
  }

  async run(request: EpisodeRequest, hooks: EpisodeHooks = {}): Promise<EpisodeOutcome> {
    const started = performance.now();
    const task = this.deps.tasks.get(request.taskSet, request.taskId);
    const env = await this.environmentFor(task).open(
      request.episodeId,
      task,
      hooks.attempt === undefined ? {} : { attempt: hooks.attempt },
    );
    const provisionMs = performance.now() - started;
    let keepForRetry = false;
    let storeMs: number | undefined;
    try {
      const played = await this.play(request, task, env, hooks);

      const gradingStarted = performance.now();
      const score = await env.score(
        {
          conversation: played.loop.conversation,
          toolCalls: played.tools.calls,
          finishReason: played.loop.finishReason,
        },
        request,
      );
      const gradingMs = performance.now() - gradingStarted;

      const cost = this.costOf(request, played.loop, score);
      const outcome = this.outcomeOf(request, task, played, score, cost.totalUsd);
      const record = recordOf(request, outcome, played, score, cost.unpriced, {
        ...played.loop.timings,
        gradingMs,
        provisionMs,
        mcpSessionMs: played.mcpSessionMs,
        trajectoryMs: 0,
        totalMs: performance.now() - started,
      });

      const storeStarted = performance.now();
      await this.storeUnderLease(env, played.trajectory, record);
      storeMs = performance.now() - storeStarted;
      return outcome;
    } catch (err) {
      // An outage keeps the episode's environment, so the retried attempt reattaches and no committed call runs twice.
      keepForRetry = err instanceof InfrastructureError;
      throw err;
    } finally {
      const teardownStarted = performance.now();
      if (keepForRetry || this.deps.keepEpisodeDatabases) await env.detach().catch(() => undefined);
      else await env.teardown();
      if (storeMs !== undefined) hooks.onStored?.({ storeMs, teardownMs: performance.now() - teardownStarted });
    }
  }

  /** The environment that plays the task: ThinkingBox's or OpenEnv's for a task of theirs, else a PostgreSQL database. */
  private environmentFor(task: Task): EpisodeEnvironment {
    const env = this.environments.find((e) => e.plays(task));
    if (!env)
      throw new UserError(
        task.thinkingbox
          ? `task ${task.id} is a ThinkingBox task (${task.thinkingbox.uid}), and this worker has no ThinkingBox environment: set THINKINGBOX_HOME (config key thinkingbox.home) and run npm run setup`
          : `task ${task.id} is an OpenEnv task (${task.openenv?.url}), and this worker has no OpenEnv environment`,
      );
    return env;
  }

  /** The conversation, from its turn checkpoint when a retried attempt reattached, and the policy's trajectory. */
  private async play(request: EpisodeRequest, task: Task, env: OpenEnvironment, hooks: EpisodeHooks): Promise<Played> {
    const resumed = env.reattached ? await env.loadCheckpoint() : undefined;
    const mcpStarted = performance.now();
    const tools = await env.connectTools();
    const mcpSessionMs = performance.now() - mcpStarted;
    // A served policy samples from one server of the fleet for the whole attempt: the one its checkpoint names while
    // that one is in service, else the least loaded.
    const servers = [...(resumed?.servers ?? [])];
    const lease =
      request.policy.kind === 'served' ? this.deps.servers.leaseFor(request.policy, servers.at(-1)) : undefined;
    if (lease && servers.at(-1) !== lease.server.url) servers.push(lease.server.url);
    try {
      const policy = (this.deps.policyFor ?? policyFor)(request, task, lease);
      if (resumed) {
        restorePolicy(policy, resumed);
        tools.resumeAfter(resumed.toolCalls);
      }
      const resumedAt = resumed ? [...resumed.resumedAt, resumed.loop.agentTurns.length] : [];
      hooks.onTurn?.(resumed?.loop.agentTurns.length ?? 0); // alive: provisioning may take longer than a turn
      let loop;
      try {
        loop = await runAgentLoop({
          system: env.system,
          ...(env.systemParts ? { systemParts: env.systemParts } : {}),
          policy,
          tools,
          user: env.userFor?.(request) ?? userFor(request, task),
          limits: request.limits,
          rules: env.rules,
          ...(resumed ? { resume: resumed.loop } : {}),
          onTurnCompleted: (state) =>
            env.saveCheckpoint(turnCheckpoint(request.episodeId, state, policy, tools.calls, resumedAt, servers)),
          ...(hooks.onTurn ? { onTurn: hooks.onTurn } : {}),
          ...(hooks.signal ? { signal: hooks.signal } : {}),
        });
      } finally {
        await tools.close();
      }
      const trajectory = await policy.finish(loop.conversation);
      return { loop, policy, tools, trajectory, resumedAt, servers, mcpSessionMs };
    } finally {
      lease?.release();
    }
  }

  private costOf(request: EpisodeRequest, loop: LoopResult, score: EpisodeScore) {
    const agentModel = loop.agentTurns[0]?.model ?? 'unknown';
    return this.deps.price(request.policy, [
      { model: agentModel, usage: loop.usage.agent },
      ...(loop.userModel ? [{ model: loop.userModel, usage: loop.usage.user }] : []),
      ...(score.judgeModel ? [{ model: score.judgeModel, usage: score.judgeUsage }] : []),
    ]);
  }

  private outcomeOf(
    request: EpisodeRequest,
    task: Task,
    played: Played,
    score: EpisodeScore,
    costUsd: number,
  ): EpisodeOutcome {
    const { loop, trajectory } = played;
    const versions = [...new Set(loop.agentTurns.map((t) => t.policyVersion))];
    return EpisodeOutcome.parse({
      episodeId: request.episodeId,
      taskId: task.id,
      domain: task.domain,
      split: task.split,
      trial: request.trial,
      tags: task.tags,
      reward: score.reward,
      error: null,
      usage: { agent: loop.usage.agent, user: loop.usage.user, judge: score.judgeUsage },
      costUsd,
      ...(request.campaignId !== undefined ? { campaignId: request.campaignId } : {}),
      ...(request.step !== undefined ? { step: request.step } : {}),
      ...(versions.length ? { policyVersion: versions.join(',') } : {}),
      finishReason: score.finishReason,
      ...(trajectory ? { trajectoryUri: this.deps.artifacts.uriOf(trajectoryPath(request.episodeId)) } : {}),
      trainable: trajectory !== null && trajectory.trainable,
      summary: episodeSummaryLine({
        taskId: task.id,
        trial: request.trial,
        reward: score.reward,
        diff: score.grade.diff,
        failedAssertions: score.failedAssertions,
        failedRubrics: score.failedRubrics,
        toolCalls: played.tools.calls.length,
        finishReason: score.finishReason,
      }),
    });
  }

  /** Written under the episode's lease: an attempt that a newer one has taken over writes neither (see underLease). */
  private async storeUnderLease(
    env: OpenEnvironment,
    trajectory: Trajectory | null,
    record: EpisodeRecord,
  ): Promise<void> {
    let trajectoryMs = 0;
    await env.underLease(async () => {
      if (trajectory) {
        const artifactStarted = performance.now();
        await this.deps.artifacts.put(trajectoryPath(env.episodeId), JSON.stringify(trajectory));
        trajectoryMs = performance.now() - artifactStarted;
      }
      await this.store.save({ ...record, timings: { ...record.timings, trajectoryMs } });
    });
  }
}

function recordOf(
  request: EpisodeRequest,
  outcome: EpisodeOutcome,
  played: Played,
  score: EpisodeScore,
  unpricedModels: string[],
  timings: EpisodeRecord['timings'],
): EpisodeRecord {
  return EpisodeRecord.parse({
    outcome,
    ...(request.group !== undefined ? { group: request.group } : {}),
    interpretedBy: played.policy.interpretedBy,
    turns: played.loop.agentTurns,
    transcript: played.loop.conversation,
    trajectoryDrift: played.trajectory?.drift ?? null,
    toolCalls: played.tools.calls,
    resumedAt: played.resumedAt,
    servers: played.servers,
    grade: score.grade,
    rubricVerdicts: score.rubricVerdicts,
    unjudgedRubrics: score.unjudgedRubrics,
    unpricedModels,
    timings,
  });
}

function trajectoryPath(episodeId: string): string {
  return `episodes/${episodeId}/trajectory.json`;
}

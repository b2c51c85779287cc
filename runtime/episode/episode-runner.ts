import { ChatAgentPolicy } from '../policy/chat-policy.js';
import type pg from 'pg';
import type { EnvironmentBackend, Episode } from '../../environment/backend.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import type { ExpectedStates } from '../../environment/expected-state.js';
import { gradeEpisode } from '../../environment/grader.js';
import type { ArtifactStore } from '../../storage/artifacts.js';
import { InfrastructureError } from '../../core/errors.js';
import { EpisodeOutcome, EpisodeRecord, type EpisodeRequest } from '../../schemas/episode.js';
import { chatFamily, DEFAULT_CHAT_FAMILY } from '../../schemas/clients.js';
import type { ModelPrices, RubricVerdict, TokenUsage } from '../../schemas/runtime.js';
import { servedFingerprintUri } from '../../schemas/policy-api.js';
import type { Task } from '../../schemas/task.js';
import { ChatClient } from '../clients/chat-client.js';
import { LlmUserSimulator } from '../clients/llm-user.js';
import { PolicyClient } from '../clients/policy-client.js';
import { ScriptedUserSimulator } from '../clients/scripted-user.js';
import type { UserSimulator } from '../clients/user-simulator.js';
import { episodeCost } from '../cost/cost-model.js';
import { getRenderer } from '../interpreter/index.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import { CompletionsAgentPolicy } from '../policy/completions-policy.js';
import { OraclePolicy } from '../policy/oracle-policy.js';
import { evaluateRubrics } from '../rubrics/evaluate.js';
import { LlmJudge } from '../rubrics/judge.js';
import { episodeSummaryLine } from './audit/summary-line.js';
import { EpisodeCheckpoints, restorePolicy, turnCheckpoint } from './checkpoint.js';
import type { EpisodeHooks, EpisodeRunner } from './runner.js';
import { EpisodeStore } from './episode-store.js';
import { runAgentLoop } from './loop.js';
import { McpToolSession } from './mcp-tool-session.js';
import type { TaskCatalog } from './task-catalog.js';
import { visibleDialogue } from './visible-dialogue.js';

export interface EpisodeRunnerDeps {
  backend: EnvironmentBackend;
  expectedStates: ExpectedStates;
  tasks: TaskCatalog;
  artifacts: ArtifactStore;
  /** Control database: episode records. */
  control: pg.Pool;
  prices?: ModelPrices;
  /** Builds the agent policy of an episode (default: the request's served model or the oracle). */
  policyFor?: PolicyFactory;
  /** Leave each finished episode's database in place for inspection (the janitor drops it after its TTL). */
  keepEpisodeDatabases?: boolean;
}

export type PolicyFactory = (request: EpisodeRequest, task: Task) => AgentPolicy;

export function policyFor(request: EpisodeRequest, task: Task): AgentPolicy {
  // The oracle writes its calls in the default format: its episodes demonstrate the tiny base model's (qwen3) format.
  if (request.policy.kind === 'oracle')
    return new OraclePolicy(task, getRenderer(DEFAULT_CHAT_FAMILY), request.policy.calls);
  if (request.policy.kind === 'chat')
    return new ChatAgentPolicy(new ChatClient(request.policy.endpoint, 'chat-policy'));
  const { client, version, checkpointUri } = request.policy;
  return new CompletionsAgentPolicy(
    new PolicyClient(client, {
      ...(version === undefined ? {} : { policyVersion: version }),
      ...(checkpointUri === undefined ? {} : { fingerprintUri: servedFingerprintUri(checkpointUri) }),
    }),
    getRenderer(chatFamily(client)),
    { seed: request.seed },
  );
}

function userFor(request: EpisodeRequest, task: Task): UserSimulator {
  if (request.user.kind === 'scripted') return new ScriptedUserSimulator(task);
  return new LlmUserSimulator(new ChatClient(request.user.endpoint, 'user-simulator'), task);
}

/**
 * The episode runtime used unchanged by evaluation and training: a fresh backend (reattached on a retried attempt),
 * the domain's tools over MCP, the agent loop with the simulated user, grading of the final state, rubrics, cost,
 * the token trajectory to the artifact store and the record to the control database.
 *
 * Resume, not restart: after every completed turn the loop's state, the policy's state (token trajectory, sampling
 * turn) and the tool calls so far are checkpointed into the episode database. A retried attempt that reattaches to
 * that database restores the checkpoint and continues with the next turn; a call of a turn that was cut off before
 * its checkpoint carries the index it had, and is answered from its record instead of running again.
 */
export class DatabaseEpisodeRunner implements EpisodeRunner {
  private readonly store: EpisodeStore;

  constructor(private readonly deps: EpisodeRunnerDeps) {
    this.store = new EpisodeStore(deps.control);
  }

  async run(request: EpisodeRequest, hooks: EpisodeHooks = {}): Promise<EpisodeOutcome> {
    const { backend, expectedStates, tasks, artifacts } = this.deps;
    const started = performance.now();
    const task = tasks.get(request.taskSet, request.taskId);
    const domain = backend.registry.get(task.domain);
    const episode: Episode = await backend.open(
      request.episodeId,
      task,
      hooks.attempt === undefined ? {} : { attempt: hooks.attempt },
    );
    const provisionMs = performance.now() - started;
    let keepForRetry = false;
    let stored: number | undefined;
    try {
      const checkpoints = new EpisodeCheckpoints(episode);
      const resumed = episode.reattached ? await checkpoints.load() : undefined;
      const mcpStarted = performance.now();
      const wiring = await connectEpisodeTools(backend, episode);
      const tools = new McpToolSession(wiring.client, () => wiring.close());
      const mcpSessionMs = performance.now() - mcpStarted;
      const policy = (this.deps.policyFor ?? policyFor)(request, task);
      if (resumed) {
        restorePolicy(policy, resumed);
        tools.resumeAfter(resumed.toolCalls);
      }
      const resumedAt = resumed ? [...resumed.resumedAt, resumed.loop.agentTurns.length] : [];
      hooks.onTurn?.(resumed?.loop.agentTurns.length ?? 0); // alive: provisioning may take longer than a turn
      let loop;
      try {
        loop = await runAgentLoop({
          system: domain.policy[task.profile],
          policy,
          tools,
          user: userFor(request, task),
          limits: request.limits,
          ...(resumed ? { resume: resumed.loop } : {}),
          onTurnCompleted: (state) =>
            checkpoints.save(turnCheckpoint(request.episodeId, state, policy, tools.calls, resumedAt)),
          ...(hooks.onTurn ? { onTurn: hooks.onTurn } : {}),
          ...(hooks.signal ? { signal: hooks.signal } : {}),
        });
      } finally {
        await tools.close();
      }
      const trajectory = await policy.finish(loop.conversation);

      const gradingStarted = performance.now();
      const agentMessages = visibleDialogue(loop.conversation)
        .filter((m) => m.from === 'agent')
        .map((m) => m.text);
      const grade = await gradeEpisode(backend, expectedStates, { episode, agentMessages });
      const judge = request.judge
        ? new LlmJudge(new ChatClient(request.judge.endpoint, 'judge'), request.judge.seed)
        : undefined;
      const rubrics = judge ? task.rubrics : task.rubrics.filter((r) => r.kind !== 'judge');
      const judged = await evaluateRubrics(rubrics, loop.conversation, judge);
      const gradingMs = performance.now() - gradingStarted;
      const assertionsHold = grade.assertions.every((a) => a.pass);
      const reward =
        grade.stateMatches && assertionsHold && judged.verdicts.every((v: RubricVerdict) => v.passed) ? 1 : 0;

      const models = [...new Set(loop.agentTurns.map((t) => t.model))];
      const usage: { agent: TokenUsage; user: TokenUsage; judge: TokenUsage } = {
        agent: loop.usage.agent,
        user: loop.usage.user,
        judge: judged.judgeUsage,
      };
      const cost = episodeCost(
        [
          { model: models[0] ?? 'unknown', usage: usage.agent },
          ...(loop.userModel ? [{ model: loop.userModel, usage: usage.user }] : []),
          ...(judged.judgeModel ? [{ model: judged.judgeModel, usage: usage.judge }] : []),
        ],
        this.deps.prices ?? {},
      );
      const trajectoryPath = `episodes/${request.episodeId}/trajectory.json`;
      const trajectoryUri = trajectory ? artifacts.uriOf(trajectoryPath) : undefined;
      const versions = [...new Set(loop.agentTurns.map((t) => t.policyVersion))];
      const outcome = EpisodeOutcome.parse({
        episodeId: request.episodeId,
        taskId: task.id,
        domain: task.domain,
        split: task.split,
        trial: request.trial,
        tags: task.tags,
        reward,
        error: null,
        usage,
        costUsd: cost.totalUsd,
        ...(request.campaignId !== undefined ? { campaignId: request.campaignId } : {}),
        ...(request.step !== undefined ? { step: request.step } : {}),
        ...(versions.length ? { policyVersion: versions.join(',') } : {}),
        finishReason: loop.finishReason,
        ...(trajectoryUri ? { trajectoryUri } : {}),
        trainable: trajectory !== null && trajectory.trainable,
        summary: episodeSummaryLine({
          taskId: task.id,
          trial: request.trial,
          reward,
          diff: grade.diff,
          failedAssertions: grade.assertions.filter((a) => !a.pass).length,
          failedRubrics: judged.verdicts.filter((v: RubricVerdict) => !v.passed).length,
          toolCalls: tools.calls.length,
          finishReason: loop.finishReason,
        }),
      });
      const record = EpisodeRecord.parse({
        outcome,
        ...(request.group !== undefined ? { group: request.group } : {}),
        interpretedBy: policy.interpretedBy,
        turns: loop.agentTurns,
        transcript: loop.conversation,
        trajectoryDrift: trajectory?.drift ?? null,
        toolCalls: tools.calls,
        resumedAt,
        grade,
        rubricVerdicts: judged.verdicts,
        unjudgedRubrics: task.rubrics.length - rubrics.length,
        unpricedModels: cost.unpriced,
        timings: {
          ...loop.timings,
          gradingMs,
          provisionMs,
          mcpSessionMs,
          trajectoryMs: 0,
          totalMs: performance.now() - started,
        },
      });
      // Written under the episode's lease: an attempt that a newer one has taken over writes neither (see underLease).
      const storeStarted = performance.now();
      let trajectoryMs = 0;
      await backend.underLease(episode, async () => {
        if (trajectory) {
          const artifactStarted = performance.now();
          await artifacts.put(trajectoryPath, JSON.stringify(trajectory));
          trajectoryMs = performance.now() - artifactStarted;
        }
        await this.store.save({ ...record, timings: { ...record.timings, trajectoryMs } });
      });
      stored = performance.now() - storeStarted;
      return outcome;
    } catch (err) {
      // An outage keeps the episode database, so the retried attempt reattaches and no committed call runs twice.
      keepForRetry = err instanceof InfrastructureError;
      throw err;
    } finally {
      const teardownStarted = performance.now();
      if (keepForRetry || this.deps.keepEpisodeDatabases) await backend.detach(episode).catch(() => undefined);
      else await backend.teardown(episode);
      if (stored !== undefined) hooks.onStored?.({ storeMs: stored, teardownMs: performance.now() - teardownStarted });
    }
  }
}

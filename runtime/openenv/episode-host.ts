import { randomBytes } from 'node:crypto';
import { UserError } from '../../core/errors.js';
import type { LoadedTaskSet } from '../../environment/task-set.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import {
  OpenEnvAction,
  OpenEnvResetParams,
  type OpenEnvObservation,
  type OpenEnvStepResult,
  type OpenEnvTaskSets,
  type OpenEnvTaskSummary,
  type OpenEnvTool,
  type OpenEnvToolError,
} from '../../schemas/openenv.js';
import type { Task } from '../../schemas/task.js';
import { seededRandom } from '../../stats/random.js';
import type { UserReply, UserSimulator } from '../clients/user-simulator.js';
import { episodeSummaryLine } from '../episode/audit/summary-line.js';
import type { EnvironmentTools, EpisodeEnvironment, OpenEnvironment } from '../episode/environment.js';
import { userFor } from '../episode/episode-runner.js';
import { runAgentLoop, type LoopResult } from '../episode/loop.js';
import type { ToolAnswer } from '../episode/tool-session.js';
import type { VisibleMessage } from '../episode/visible-dialogue.js';
import { RemoteAgent } from './remote-agent.js';

/** Diff entries an observation carries at most; the rest are counted in `diff_truncated`. */
const MAX_DIFF_ENTRIES = 50;

/** A refusal of the host's API: `kind` picks the HTTP status (schemas/openenv.ts, OpenEnvHostError). */
export class HostRefusal extends Error {
  constructor(
    message: string,
    readonly kind: 'bad_request' | 'not_found' | 'conflict',
  ) {
    super(message);
  }
}

export interface EpisodeHostOptions {
  /** The served task sets (already filtered to the served domain and split). */
  sets: readonly LoadedTaskSet[];
  /** The environments that play tasks (ThinkingBox's first when configured, then PostgreSQL). */
  environments: readonly EpisodeEnvironment[];
  user: EpisodeRequest['user'];
  /** Prefix of the backend's episode ids, so that two servers (or runs) never share an episode database. */
  runId?: string;
  /** Episodes open at once; one more is refused (the OpenEnv server's session cap comes first). */
  maxEpisodes: number;
  log?: (line: string) => void;
}

/** The tools as the loop calls them, remembering the last answer and whether the call was refused before it ran. */
class WatchedTools implements EnvironmentTools {
  last: { answer: ToolAnswer; refused: boolean } | undefined;
  forget(): void {
    this.last = undefined;
  }
  constructor(private readonly inner: EnvironmentTools) {}
  get calls() {
    return this.inner.calls;
  }
  resumeAfter(calls: Parameters<EnvironmentTools['resumeAfter']>[0]): void {
    this.inner.resumeAfter(calls);
  }
  listTools() {
    return this.inner.listTools();
  }
  async callTool(name: string, args: Record<string, unknown>, options?: { budgetMs?: number }): Promise<ToolAnswer> {
    const before = this.inner.calls.length;
    const answer = await this.inner.callTool(name, args, options);
    const record = this.inner.calls.length > before ? this.inner.calls.at(-1) : undefined;
    this.last = { answer, refused: record?.index === null };
    return answer;
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The user simulator, remembering its last reply (the one that ends a conversation is not in it). */
class WatchedUser implements UserSimulator {
  last: UserReply | undefined;
  forget(): void {
    this.last = undefined;
  }
  constructor(private readonly inner: UserSimulator) {}
  opening(): UserReply {
    return this.inner.opening();
  }
  async reply(dialogue: readonly VisibleMessage[]): Promise<UserReply> {
    this.last = await this.inner.reply(dialogue);
    return this.last;
  }
}

interface HostedEpisode {
  id: string;
  task: Task;
  env: OpenEnvironment;
  tools: WatchedTools;
  user: WatchedUser;
  agent: RemoteAgent;
  abort: AbortController;
  request: EpisodeRequest;
  /** The loop; its outcome (never a rejection) once it has ended. */
  loop: Promise<{ result: LoopResult } | { error: unknown }>;
  /** Set once the episode is done: its last answer, repeated to any later step. */
  final?: OpenEnvStepResult;
  busy: boolean;
  /** The teardown under way or done. */
  closing?: Promise<void>;
}

const causeOf = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/**
 * The episodes of `finalstate env serve --openenv`: each a finalstate episode on the EpisodeEnvironment seam (a fresh
 * PostgreSQL database with the domain's tools, or a ThinkingBox session), played by the one agent loop with a
 * RemoteAgent whose turns are the OpenEnv actions, graded by the environment's own scoring. `reset` opens one,
 * `step` plays an action, `close` tears it down; an episode that ends (finish, the user, a limit, an infrastructure
 * failure) is graded and torn down at once, its last answer kept until it is closed.
 */
export class EpisodeHost {
  private readonly tasks: Task[];
  private readonly byId = new Map<string, { task: Task; set: LoadedTaskSet }>();
  private readonly episodes = new Map<string, HostedEpisode>();
  private readonly runId: string;
  private readonly log: (line: string) => void;
  private opening = 0;

  constructor(private readonly options: EpisodeHostOptions) {
    this.runId = options.runId ?? randomBytes(4).toString('hex');
    this.log = options.log ?? (() => undefined);
    this.tasks = options.sets.flatMap((s) => s.tasks);
    for (const set of options.sets) for (const task of set.tasks) this.byId.set(task.id, { task, set });
    if (this.tasks.length === 0) throw new UserError('finalstate env serve: no task to serve');
    const unplayable = this.tasks.find((t) => !options.environments.some((e) => e.plays(t)));
    if (unplayable)
      throw new UserError(
        `task ${unplayable.id} is a ThinkingBox task, and no ThinkingBox environment is configured: set THINKINGBOX_HOME (config key thinkingbox.home) and run npm run setup`,
      );
  }

  /** The served sets and their task ids (`GET /tasks`). */
  taskSets(): OpenEnvTaskSets {
    return {
      sets: this.options.sets.map((set) => ({
        name: set.manifest.name,
        version: set.manifest.version,
        domains: [...new Set(set.tasks.map((t) => t.domain))],
        splits: [...new Set(set.tasks.map((t) => t.split))],
        kind: set.tasks.some((t) => t.thinkingbox) ? ('thinkingbox' as const) : ('native' as const),
        task_ids: set.tasks.map((t) => t.id),
      })),
    };
  }

  /** One task, without its solution (`GET /tasks/{id}`). */
  taskSummary(id: string): OpenEnvTaskSummary {
    const found = this.byId.get(id);
    if (!found) throw new HostRefusal(`no task ${id} in the served sets (GET /tasks lists them)`, 'not_found');
    const { task, set } = found;
    return {
      id: task.id,
      set: set.manifest.name,
      domain: task.domain,
      split: task.split,
      profile: task.profile,
      tags: task.tags,
      kind: task.thinkingbox ? 'thinkingbox' : 'native',
    };
  }

  get openEpisodes(): number {
    return this.episodes.size;
  }

  /** Open an episode (OpenEnv's reset): the first observation carries the user's first message and the tools. */
  async reset(input: unknown): Promise<OpenEnvStepResult> {
    const parsed = OpenEnvResetParams.safeParse(input ?? {});
    if (!parsed.success) throw new HostRefusal(`reset: ${issueText(parsed.error.issues)}`, 'bad_request');
    const params = parsed.data;
    const task = this.pick(params);
    const id = params.episode_id ?? `ep-${randomBytes(6).toString('hex')}`;
    if (this.episodes.has(id)) throw new HostRefusal(`reset: episode ${id} is open on this server`, 'conflict');
    if (this.episodes.size + this.opening >= this.options.maxEpisodes)
      throw new HostRefusal(
        `reset: ${this.options.maxEpisodes} episodes are open on this server (--max-sessions); close one`,
        'conflict',
      );
    const request = EpisodeRequest.parse({
      episodeId: `openenv/${this.runId}/${id}`,
      taskId: task.id,
      taskSet: this.byId.get(task.id)!.set.manifestFile,
      trial: 0,
      // not read by the environments (the agent is remote); an EpisodeRequest needs one
      policy: { kind: 'oracle' },
      user: this.options.user,
      seed: params.seed ?? 0,
    });
    const environment = this.options.environments.find((e) => e.plays(task))!;
    this.opening++;
    let env: OpenEnvironment;
    let tools: WatchedTools;
    try {
      env = await environment.open(request.episodeId, task, {});
      try {
        tools = new WatchedTools(await env.connectTools());
      } catch (err) {
        await env.teardown().catch(() => undefined);
        throw err;
      }
    } catch (err) {
      this.log(`episode ${id} (task ${task.id}) could not open: ${causeOf(err)}`);
      return {
        observation: { task_id: task.id, episode_id: id, infrastructure_error: causeOf(err) },
        reward: null,
        done: true,
      };
    } finally {
      this.opening--;
    }
    const agent = new RemoteAgent();
    const abort = new AbortController();
    const user = new WatchedUser(env.userFor?.(request) ?? userFor(request, task));
    const loop = runAgentLoop({
      system: env.system,
      ...(env.systemParts ? { systemParts: env.systemParts } : {}),
      policy: agent,
      tools,
      user,
      limits: request.limits,
      rules: env.rules,
      signal: abort.signal,
    }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const episode: HostedEpisode = { id, task, env, tools, user, agent, abort, request, loop, busy: true };
    this.episodes.set(id, episode);
    this.log(`episode ${id} (task ${task.id}) opened${where(env)}`);
    try {
      const first = await this.untilTurn(episode);
      const base = { task_id: task.id, episode_id: id };
      if (first) return this.ended(episode, first, base);
      const conversation = agent.conversation!;
      const opening = conversation.turns[0];
      return {
        observation: {
          ...base,
          system_prompt: env.system,
          user_message: opening?.role === 'user' ? opening.content : '',
          tools: conversation.tools.map(openEnvTool),
        },
        reward: null,
        done: false,
      };
    } finally {
      episode.busy = false;
    }
  }

  /** Play one action of an open episode (OpenEnv's step). */
  async step(episodeId: string, input: unknown): Promise<OpenEnvStepResult> {
    const episode = this.episodes.get(episodeId);
    if (!episode || episode.closing)
      throw new HostRefusal(
        `step: no episode ${episodeId} is open (closed, or never opened): reset first`,
        'not_found',
      );
    const parsed = OpenEnvAction.safeParse(input);
    if (!parsed.success)
      throw new HostRefusal(`step: malformed action: ${issueText(parsed.error.issues)}`, 'bad_request');
    if (episode.final) return episode.final;
    if (episode.busy)
      throw new HostRefusal(`step: episode ${episodeId} is still answering the last action`, 'conflict');
    episode.busy = true;
    try {
      return await this.play(episode, parsed.data);
    } finally {
      episode.busy = false;
    }
  }

  /** Tear an episode down (OpenEnv's close, or a dropped connection); resolves once it is gone. */
  async close(episodeId: string, why = 'closed'): Promise<boolean> {
    const episode = this.episodes.get(episodeId);
    if (!episode) return false;
    await this.teardown(episode, why);
    this.episodes.delete(episodeId);
    return true;
  }

  /** Tear every episode down (the server stops). */
  async closeAll(why: string): Promise<void> {
    await Promise.all([...this.episodes.keys()].map((id) => this.close(id, why)));
  }

  private pick(params: OpenEnvResetParams): Task {
    if (params.task_id !== undefined) {
      const found = this.byId.get(params.task_id);
      if (!found)
        throw new HostRefusal(
          `reset: no task ${params.task_id} in the served sets (GET /tasks lists them)`,
          'bad_request',
        );
      return found.task;
    }
    const seed = params.seed ?? Math.floor(Math.random() * 2 ** 31);
    return this.tasks[Math.floor(seededRandom(seed)() * this.tasks.length)]!;
  }

  private async play(episode: HostedEpisode, action: OpenEnvAction): Promise<OpenEnvStepResult> {
    const base = { task_id: episode.task.id, episode_id: episode.id };
    if (action.type === 'list_tools') {
      try {
        const tools = await episode.tools.listTools();
        return { observation: { ...base, tools: tools.map(openEnvTool) }, reward: null, done: false };
      } catch (err) {
        return this.ended(episode, { error: err }, base);
      }
    }
    const conversation = episode.agent.conversation!;
    const turnsBefore = conversation.turns.length;
    episode.tools.forget();
    episode.user.forget();
    if (action.type === 'call_tool') {
      const call = { tool: action.tool_name, arguments: action.arguments };
      const names = conversation.tools.map((t) => t.name);
      if (!names.includes(action.tool_name))
        episode.agent.act({
          call,
          failure: {
            kind: 'unknown_tool',
            message: `unknown tool ${action.tool_name}; the tools are ${names.join(', ')}`,
          },
        });
      else episode.agent.act({ call });
    } else episode.agent.act({ message: action.type === 'finish' ? '' : action.content });

    const ended = await this.untilTurn(episode);
    const fields: OpenEnvObservation = { ...base };
    if (action.type === 'call_tool') {
      fields.tool_name = action.tool_name;
      const answered = conversation.turns.slice(turnsBefore).find((t) => t.role === 'tool');
      const last = episode.tools.last;
      if (!last) {
        if (answered) fields.error = { error_type: 'tool_not_found', message: answered.content };
      } else if (last.answer.budgetSpent) {
        fields.error = { error_type: 'timeout', message: "the episode's clock ran out during the call" };
      } else if (last.answer.isError) {
        const error_type: OpenEnvToolError['error_type'] = last.refused ? 'invalid_args' : 'execution_error';
        fields.error = { error_type, message: answered?.content ?? textOf(last.answer) };
      } else fields.result = answered?.content ?? textOf(last.answer);
    } else if (action.type === 'message') {
      const reply = episode.user.last;
      if (reply) fields.user_message = reply.text;
    }
    if (ended) return this.ended(episode, ended, fields);
    return { observation: fields, reward: null, done: false };
  }

  /** Wait until the loop asks for the agent's next turn (undefined) or ends (its outcome). */
  private async untilTurn(episode: HostedEpisode) {
    const asked = episode.agent.awaitingTurn.then(() => undefined);
    return Promise.race([asked, episode.loop]);
  }

  /** The episode is over: grade it (or report the infrastructure failure), tear it down, keep the answer. */
  private async ended(
    episode: HostedEpisode,
    outcome: { result: LoopResult } | { error: unknown },
    fields: OpenEnvObservation,
  ): Promise<OpenEnvStepResult> {
    let final: OpenEnvStepResult;
    if ('error' in outcome) final = infrastructureFailure(fields, outcome.error);
    else {
      const { result } = outcome;
      try {
        const score = await episode.env.score(
          { conversation: result.conversation, toolCalls: episode.tools.calls, finishReason: result.finishReason },
          episode.request,
        );
        const diff = score.grade.diff;
        final = {
          observation: {
            ...fields,
            finish_reason: result.finishReason,
            diff: diff.slice(0, MAX_DIFF_ENTRIES),
            ...(diff.length > MAX_DIFF_ENTRIES ? { diff_truncated: diff.length - MAX_DIFF_ENTRIES } : {}),
            summary: episodeSummaryLine({
              taskId: episode.task.id,
              trial: 0,
              reward: score.reward,
              diff,
              failedAssertions: score.failedAssertions,
              failedRubrics: score.failedRubrics,
              toolCalls: episode.tools.calls.length,
              finishReason: score.finishReason,
            }),
          },
          reward: score.reward,
          done: true,
        };
      } catch (err) {
        final = infrastructureFailure({ ...fields, finish_reason: result.finishReason }, err);
      }
    }
    episode.final = final;
    const why = final.observation.infrastructure_error
      ? `infrastructure failure: ${final.observation.infrastructure_error}`
      : `done (${final.observation.finish_reason}, reward ${final.reward})`;
    await this.teardown(episode, why);
    return final;
  }

  private teardown(episode: HostedEpisode, why: string): Promise<void> {
    episode.closing ??= (async () => {
      episode.abort.abort(new Error(`episode ${episode.id} ${why}`));
      await episode.loop;
      await episode.tools
        .close()
        .catch((err: unknown) => this.log(`episode ${episode.id}: closing its tools: ${causeOf(err)}`));
      try {
        await episode.env.teardown();
        this.log(`episode ${episode.id} torn down: ${why}`);
      } catch (err) {
        this.log(`episode ${episode.id}: teardown failed (${causeOf(err)}); the janitor drops what is left`);
      }
    })();
    return episode.closing;
  }
}

function infrastructureFailure(fields: OpenEnvObservation, err: unknown): OpenEnvStepResult {
  return { observation: { ...fields, infrastructure_error: causeOf(err) }, reward: null, done: true };
}

function openEnvTool(tool: { name: string; description: string; inputSchema: Record<string, unknown> }): OpenEnvTool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}

const textOf = (answer: ToolAnswer) => (answer.content ?? []).map((c) => c.text ?? '').join('\n');

/** Where the episode plays, for the log: its database (PostgreSQL) when the environment says. */
function where(env: OpenEnvironment): string {
  const database = (env as { episode?: { database?: unknown } }).episode?.database;
  return typeof database === 'string' ? ` on database ${database}` : '';
}

function issueText(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`).join('; ');
}

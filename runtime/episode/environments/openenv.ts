import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { InfrastructureError, UserError } from '../../../core/errors.js';
import { OpenEnvRefused, type OpenEnvBridge } from '../../../environment/openenv/bridge.js';
import { OpenEnvEpisodeRows } from '../../../environment/openenv/episode-rows.js';
import { readOpenEnvToken } from '../../../environment/openenv/token.js';
import { taskSha256 } from '../../../environment/task-set.js';
import type { TurnCheckpoint } from '../../../schemas/checkpoint.js';
import type { ToolSchema } from '../../../schemas/conversation.js';
import type { OpenEnvBridgeResult } from '../../../schemas/openenv-bridge.js';
import type { OpenEnvTaskPart } from '../../../schemas/openenv-task.js';
import type { Task } from '../../../schemas/task.js';
import { NO_USAGE, type UserReply, type UserSimulator } from '../../clients/user-simulator.js';
import type {
  ConversationRules,
  EnvironmentTools,
  EpisodeEnvironment,
  OpenEnvironment,
  PlayedEpisode,
} from '../environment.js';
import type { ToolCallRecord } from '../mcp-tool-session.js';
import { scoreOpenEnvEpisode, type EpisodeScore } from '../scoring.js';
import type { ToolAnswer } from '../tool-session.js';
import type { VisibleMessage } from '../visible-dialogue.js';

/** The system prompt of an environment that gives none (OpenEnvTaskPart.system, systemField). */
export const DEFAULT_OPENENV_SYSTEM =
  'You are an agent working in an environment through its tools. Do what the user asks with the tools; when the task is done, say so in a short final message.';

export interface OpenEnvEnvironmentDeps {
  bridge: OpenEnvBridge;
  /** The control database: the episodes' rows (which attempt holds each one). */
  control: pg.Pool;
  /** Connections that hold an episode's lease while its record is stored, apart from `control` (one per episode). */
  leases: pg.Pool;
}

/**
 * Tasks played on an environment served over OpenEnv (Task.openenv), through OpenEnv's own Python client (the bridge).
 * An episode is one OpenEnv session: connect and reset with the task's reset kwargs (its system prompt and the user's
 * first message from the reset observation), the agent's tools the environment's MCP tools (`call_tool` steps), its
 * plain messages `message` steps answered in `user_message` (or, for a tools-only environment, its final answer), and
 * its reward the terminal step's (done), scored by runtime/episode/scoring.ts.
 *
 * A session lives in this worker's bridge and dies with its WebSocket: a retried attempt never reattaches, it starts
 * the episode over in a fresh session (nothing of the lost one was scored). The control database's row of the episode
 * fences its attempts, so an attempt that a newer one took over writes no record. Connection refused, a 5xx, a session
 * that died (the server killed mid-episode), a timeout and a terminal step without a reward are InfrastructureErrors:
 * retried, refilled, never a 0.
 */
export class OpenEnvEnvironment implements EpisodeEnvironment {
  private readonly rows: OpenEnvEpisodeRows;

  constructor(private readonly deps: OpenEnvEnvironmentDeps) {
    this.rows = new OpenEnvEpisodeRows(deps.control, deps.leases);
  }

  plays(task: Task): boolean {
    return task.openenv !== undefined;
  }

  async open(episodeId: string, task: Task, options: { attempt?: number }): Promise<OpenEnvironment> {
    const part = task.openenv!;
    const lease = randomUUID();
    await this.rows.hold(episodeId, options.attempt ?? null, lease, part.url);
    let session: string | undefined;
    try {
      const token = readOpenEnvToken(part, `task ${task.id}`);
      const opened = await this.deps.bridge.open({
        url: part.url,
        ...(token !== undefined ? { token } : {}),
        reset: {
          ...part.reset,
          ...(part.sendEpisodeId ? { episode_id: openEnvEpisodeId(episodeId, options.attempt) } : {}),
        },
        connectTimeoutSeconds: part.connectTimeoutSeconds,
        stepTimeoutSeconds: part.stepTimeoutSeconds,
      });
      session = opened.session;
      const episode = new OpenOpenEnvEpisode(this.deps, this.rows, task, part, episodeId, lease, session);
      await episode.begin(opened.result);
      return episode;
    } catch (err) {
      if (session !== undefined) await this.deps.bridge.closeSession(session);
      // an outage keeps the row, so the attempt it fails stays fenced off from the retry
      if (!(err instanceof InfrastructureError)) await this.rows.remove(episodeId, lease).catch(() => undefined);
      throw err;
    }
  }
}

/**
 * The reset's `episode_id`: finalstate's episode id and attempt in OpenEnv's id characters (letters, digits and
 * . _ : -, at most 128), so the server's logs name the episode; "/" becomes ":".
 */
export function openEnvEpisodeId(episodeId: string, attempt: number | undefined): string {
  const id = `${episodeId}${attempt !== undefined ? `:a${attempt}` : ''}`
    .replace(/[^A-Za-z0-9._:-]/g, ':')
    .replace(/^[^A-Za-z0-9]+/, '');
  if (id.length <= 128) return id;
  return `${createHash('sha256').update(id).digest('hex').slice(0, 16)}:${id.slice(-111)}`;
}

const fieldsOf = (o: Record<string, unknown>) =>
  Object.keys(o)
    .filter((k) => o[k] !== null && o[k] !== undefined)
    .join(', ') || 'none';

/** The terminal step: the reward and the observation it came with. */
interface Terminal {
  reward: number;
  observation: Record<string, unknown>;
}

class OpenOpenEnvEpisode implements OpenEnvironment {
  readonly reattached = false;
  readonly rules: ConversationRules;
  system = DEFAULT_OPENENV_SYSTEM;
  private prompt = '';
  private tools: ToolSchema[] = [];
  private terminal: Terminal | undefined;
  private readonly playedCalls: ToolCallRecord[] = [];

  constructor(
    private readonly deps: OpenEnvEnvironmentDeps,
    private readonly rows: OpenEnvEpisodeRows,
    private readonly task: Task,
    private readonly part: OpenEnvTaskPart,
    readonly episodeId: string,
    private readonly lease: string,
    private readonly session: string,
  ) {
    // a tools-only environment: the agent's first plain message is its final answer and ends the conversation
    this.rules = part.messages === 'final' ? { endsConversation: () => true } : {};
  }

  /** Read the reset: the system prompt, the user's first message and the tools. */
  async begin(reset: OpenEnvBridgeResult): Promise<void> {
    const observation = reset.observation;
    if (reset.done)
      throw this.infrastructure(
        `the reset on ${this.part.url} came back done${typeof observation.infrastructure_error === 'string' ? `: ${observation.infrastructure_error}` : ''}`,
        'openenv-reset',
      );
    const prompt = observation[this.part.promptField];
    if (typeof prompt !== 'string' || prompt.trim() === '')
      throw new UserError(
        `task ${this.task.id}: the reset observation of ${this.part.url} has no text in "${this.part.promptField}" (it has ${fieldsOf(observation)}): set the task's openenv.promptField`,
      );
    this.prompt = prompt;
    const system = observation[this.part.systemField];
    this.system = typeof system === 'string' && system.trim() !== '' ? system : (this.part.system ?? this.system);
    const listed = Array.isArray(observation.tools)
      ? observation.tools
      : (await this.step({ type: 'list_tools' })).observation.tools;
    if (!Array.isArray(listed))
      throw new UserError(`task ${this.task.id}: ${this.part.url} listed no tools (a list_tools step gave no "tools")`);
    this.tools = listed.map((t: unknown) => toolSchema(t, this.part.url));
  }

  loadCheckpoint(): Promise<TurnCheckpoint | undefined> {
    return Promise.resolve(undefined);
  }

  /** Nothing to resume from (a retried attempt starts over); the lease is checked, so a stale attempt stops here. */
  saveCheckpoint(): Promise<void> {
    return this.rows.touch(this.episodeId, this.lease);
  }

  async connectTools(): Promise<EnvironmentTools> {
    return new OpenEnvTools(this);
  }

  /** The environment answers the agent's messages, whatever the campaign's user simulator. */
  userFor(): UserSimulator {
    return new OpenEnvUser(this);
  }

  get listedTools(): ToolSchema[] {
    return this.tools;
  }

  get calls(): ToolCallRecord[] {
    return this.playedCalls;
  }

  get openingMessage(): string {
    return this.prompt;
  }

  get mode(): OpenEnvTaskPart['messages'] {
    return this.part.messages;
  }

  /** One step of the session; a done one is the terminal step (its reward checked here). */
  async step(action: Record<string, unknown>): Promise<OpenEnvBridgeResult> {
    if (this.terminal)
      throw new Error(`episode ${this.episodeId}: a ${String(action.type)} step after the terminal one`);
    const result = await this.deps.bridge.step(this.session, action, this.part.stepTimeoutSeconds, this.part.url);
    if (result.done) {
      const { observation, reward } = result;
      if (typeof observation.infrastructure_error === 'string')
        throw this.infrastructure(
          `${this.part.url} ended the episode on a failure of its own: ${observation.infrastructure_error}`,
          'openenv-server',
        );
      if (typeof reward !== 'number' || !Number.isFinite(reward))
        throw this.infrastructure(
          `${this.part.url} ended the episode (a ${String(action.type)} step came back done) without a reward`,
          'openenv-no-reward',
        );
      this.terminal = { reward, observation };
    }
    return result;
  }

  get done(): boolean {
    return this.terminal !== undefined;
  }

  async score(played: PlayedEpisode): Promise<EpisodeScore> {
    if (!this.terminal && this.part.messages === 'message') {
      const finish = await this.step({ type: 'finish' });
      if (!finish.done)
        throw this.infrastructure(
          `${this.part.url} answered the finish step without ending the episode`,
          'openenv-no-reward',
        );
    }
    if (!this.terminal && this.part.submit) {
      const answer = played.conversation.turns.findLast((t) => t.role === 'assistant' && t.content.trim() !== '');
      if (answer)
        await this.step({
          type: 'call_tool',
          tool_name: this.part.submit.tool,
          arguments: { [this.part.submit.argument]: answer.content.trim() },
        });
    }
    return scoreOpenEnvEpisode({
      taskId: this.task.id,
      taskSha256: taskSha256(this.task),
      url: this.part.url,
      terminal: this.terminal,
      passReward: this.part.passReward,
      finishReason: played.finishReason,
    });
  }

  underLease<T>(fn: () => Promise<T>): Promise<T> {
    return this.rows.underLease(this.episodeId, this.lease, fn);
  }

  /** The session cannot be reattached (it dies with its WebSocket): closed; the row stays and fences this attempt off. */
  async detach(): Promise<void> {
    await this.deps.bridge.closeSession(this.session);
  }

  async teardown(): Promise<void> {
    await this.deps.bridge.closeSession(this.session);
    await this.rows.remove(this.episodeId, this.lease).catch(() => undefined);
  }

  private infrastructure(message: string, component: string): InfrastructureError {
    return new InfrastructureError(`episode ${this.episodeId}: ${message}`, component);
  }
}

/** A tool as OpenEnv lists it (mcp_types.Tool: name, description, input_schema), as the agent sees it. */
function toolSchema(tool: unknown, url: string): ToolSchema {
  const t = (tool ?? {}) as { name?: unknown; description?: unknown; input_schema?: unknown; inputSchema?: unknown };
  const schema = t.input_schema ?? t.inputSchema;
  if (typeof t.name !== 'string' || t.name === '' || typeof schema !== 'object' || schema === null)
    throw new OpenEnvRefused(
      `${url} listed a tool without a name or an input schema: ${JSON.stringify(tool).slice(0, 200)}`,
    );
  return {
    name: t.name,
    description: typeof t.description === 'string' ? t.description : '',
    inputSchema: schema as Record<string, unknown>,
  };
}

/**
 * What the agent reads of a call_tool step: OpenEnv's ToolError (the call failed: the episode goes on), else its
 * result: text (finalstate's served environment), or an MCP CallToolResult (an MCPEnvironment's: its text items).
 */
export function toolAnswerText(observation: Record<string, unknown>): { isError: boolean; text: string } {
  const error = observation.error as { error_type?: unknown; message?: unknown } | null | undefined;
  if (error && typeof error === 'object')
    return { isError: true, text: `${String(error.error_type ?? 'error')}: ${String(error.message ?? '')}` };
  const result = observation.result;
  if (typeof result === 'string') return { isError: false, text: result };
  if (result && typeof result === 'object') {
    const r = result as { content?: unknown; is_error?: unknown; isError?: unknown; data?: unknown };
    const isError = r.is_error === true || r.isError === true;
    if (Array.isArray(r.content)) {
      const text = r.content
        .map((c: { type?: unknown; text?: unknown }) =>
          c?.type === 'text' ? String(c.text ?? '') : `[${String(c?.type)} content omitted]`,
        )
        .join('\n');
      return { isError, text };
    }
    return { isError, text: JSON.stringify(r.data ?? result) };
  }
  return { isError: false, text: result === undefined || result === null ? '' : JSON.stringify(result) };
}

/** The episode's tools: each call a call_tool step; a done one ends the conversation (its reward is the terminal one). */
class OpenEnvTools implements EnvironmentTools {
  constructor(private readonly episode: OpenOpenEnvEpisode) {}

  get calls(): ToolCallRecord[] {
    return this.episode.calls;
  }

  resumeAfter(calls: readonly ToolCallRecord[]): void {
    this.episode.calls.push(...calls);
  }

  async listTools(): Promise<ToolSchema[]> {
    return this.episode.listedTools;
  }

  /** Runs to its answer: a call is bounded by the step timeout (past it, the attempt fails as infrastructure). */
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const started = performance.now();
    const result = await this.episode.step({ type: 'call_tool', tool_name: name, arguments: args });
    const answer = toolAnswerText(result.observation);
    this.episode.calls.push({
      index: this.episode.calls.length,
      tool: name,
      arguments: args,
      isError: answer.isError,
      result: answer.text,
      ms: performance.now() - started,
    });
    return {
      isError: answer.isError,
      content: [{ type: 'text', text: answer.text }],
      ...(result.done ? { endsConversation: true as const } : {}),
    };
  }

  async close(): Promise<void> {}
}

/** The environment's own user: the reset's first message, then `message` steps answered in `user_message`. */
class OpenEnvUser implements UserSimulator {
  constructor(private readonly episode: OpenOpenEnvEpisode) {}

  opening(): UserReply {
    return { text: this.episode.openingMessage, done: false, usage: NO_USAGE, model: null };
  }

  async reply(dialogue: readonly VisibleMessage[]): Promise<UserReply> {
    const said = dialogue.at(-1);
    if (this.episode.mode !== 'message' || said?.from !== 'agent')
      throw new Error(`episode ${this.episode.episodeId}: the OpenEnv user is asked to reply to no agent message`);
    const result = await this.episode.step({ type: 'message', content: said.text });
    const text = result.observation.user_message;
    if (result.done) return { text: typeof text === 'string' ? text : '', done: true, usage: NO_USAGE, model: null };
    if (typeof text !== 'string')
      throw new OpenEnvRefused(
        `episode ${this.episode.episodeId}: the environment answered a message step without "user_message" (it has ${fieldsOf(result.observation)}): a tools-only environment wants the task's openenv.messages "final"`,
      );
    return { text, done: false, usage: NO_USAGE, model: null };
  }
}

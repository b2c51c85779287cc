import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { z } from 'zod';
import { taskSha256 } from '../../../environment/task-set.js';
import { ThinkingBoxEpisodeRows, type ThinkingBoxEpisodeRow } from '../../../environment/thinkingbox/episode-rows.js';
import type { ThinkingBoxProxyClient } from '../../../environment/thinkingbox/proxy-client.js';
import { ProxySessionTools } from '../../../environment/thinkingbox/proxy-tools.js';
import { MalformedThinkingBoxTask, type ThinkingBoxSidecar } from '../../../environment/thinkingbox/sidecar.js';
import type { ThinkingBoxSessionPool } from '../../../environment/thinkingbox/session-pool.js';
import { TurnCheckpoint } from '../../../schemas/checkpoint.js';
import type { ToolSchema } from '../../../schemas/conversation.js';
import type { EpisodeRequest } from '../../../schemas/episode.js';
import type { Task } from '../../../schemas/task.js';
import { GradeResponse, type ThinkingBoxTaskPart } from '../../../schemas/thinkingbox.js';
import { llmEndpointOf, ThinkingBoxUserSimulator } from '../../clients/thinkingbox-user.js';
import type { UserSimulator } from '../../clients/user-simulator.js';
import type {
  ConversationRules,
  EnvironmentTools,
  EpisodeEnvironment,
  OpenEnvironment,
  PlayedEpisode,
} from '../environment.js';
import type { ToolCallRecord } from '../mcp-tool-session.js';
import { scoreThinkingBoxEpisode, type EpisodeScore } from '../scoring.js';
import type { ToolAnswer } from '../tool-session.js';
import { thinkingBoxMessages, thinkingBoxToolCalls } from './thinkingbox-messages.js';

/** ThinkingBox's end-of-conversation marker (its `think` agent template, MessageConfig.tag_done). */
export const DONE_MARKER = '<DONE>';

export interface ThinkingBoxEnvironmentDeps {
  proxy: ThinkingBoxProxyClient;
  sessions: ThinkingBoxSessionPool;
  sidecar: ThinkingBoxSidecar;
  /** The control database: the episodes' rows (sessions, leases, checkpoints). */
  control: pg.Pool;
  /**
   * Connections to the control database that hold an episode's lease while its record is stored, apart from `control`
   * (the record is written through the control pool, which held leases would starve); one per concurrent episode.
   */
  leases: pg.Pool;
  /** How long one tool call may go unanswered before the agent is told it did not finish (never re-sent). */
  toolCallTimeoutMs: number;
}

/**
 * ThinkingBox tasks on ThinkingBox's own session proxy and servers, graded by ThinkingBox's own test runner. One
 * session per episode (taken from the pool of sessions created ahead), its tools over the proxy's MCP endpoint, its
 * effects read at the end, destroyed always; the episode's row in the control database names its session, its lease
 * and its last turn checkpoint.
 *
 * A retried attempt reattaches to its session while the proxy still has it and every call sent to it is in the
 * checkpoint. Otherwise (the proxy restarted, or a call was sent after the last checkpoint, whose effect is unknown)
 * the attempt starts the episode over in a fresh session: the lost session's state cannot be rebuilt faithfully by
 * replaying calls (the servers draw ids and timestamps of their own), and nothing of it was scored.
 */
export class ThinkingBoxEnvironment implements EpisodeEnvironment {
  private readonly rows: ThinkingBoxEpisodeRows;

  constructor(private readonly deps: ThinkingBoxEnvironmentDeps) {
    this.rows = new ThinkingBoxEpisodeRows(deps.control, deps.leases);
  }

  plays(task: Task): boolean {
    return task.thinkingbox !== undefined;
  }

  async open(episodeId: string, task: Task, options: { attempt?: number }): Promise<OpenEnvironment> {
    const part = task.thinkingbox!;
    const attempt = options.attempt ?? null;
    const lease = randomUUID();
    const existing = await this.rows.claim(episodeId, attempt, lease);
    if (existing) {
      const checkpoint = parseCheckpoint(existing);
      const intact =
        (await this.deps.proxy.hasSession(existing.sessionId)) &&
        existing.sentCalls === (checkpoint?.toolCalls.length ?? 0);
      if (intact) {
        this.deps.sessions.hold();
        return new OpenThinkingBoxEpisode(this.deps, this.rows, task, part, existing, lease, true);
      }
      await this.deps.proxy.destroySession(existing.sessionId).catch(() => undefined);
      const fresh = await this.deps.sessions.take(spec(part));
      try {
        await this.rows.restart(episodeId, lease, fresh.sessionId, fresh.initResult);
      } catch (err) {
        await this.deps.proxy.destroySession(fresh.sessionId).catch(() => undefined);
        this.deps.sessions.release();
        throw err;
      }
      const row = {
        ...existing,
        sessionId: fresh.sessionId,
        initResult: fresh.initResult,
        sentCalls: 0,
        checkpoint: null,
      };
      return new OpenThinkingBoxEpisode(this.deps, this.rows, task, part, row, lease, false);
    }
    const taken = await this.deps.sessions.take(spec(part));
    const row: ThinkingBoxEpisodeRow = {
      episodeId,
      sessionId: taken.sessionId,
      proxyUrl: this.deps.proxy.url,
      attempt,
      lease,
      sentCalls: 0,
      checkpoint: null,
      initResult: taken.initResult,
    };
    try {
      await this.rows.insert(row);
    } catch (err) {
      await this.deps.proxy.destroySession(taken.sessionId).catch(() => undefined);
      this.deps.sessions.release();
      throw err;
    }
    return new OpenThinkingBoxEpisode(this.deps, this.rows, task, part, row, lease, false);
  }
}

const spec = (part: ThinkingBoxTaskPart) => ({ serverConfig: part.serverConfig, availableTools: part.availableTools });

function parseCheckpoint(row: ThinkingBoxEpisodeRow): TurnCheckpoint | undefined {
  if (row.checkpoint === null || row.checkpoint === undefined) return undefined;
  const parsed = TurnCheckpoint.safeParse(row.checkpoint);
  if (!parsed.success)
    throw new Error(`episode ${row.episodeId}: its ThinkingBox turn checkpoint is unreadable: ${parsed.error.message}`);
  return parsed.data;
}

class OpenThinkingBoxEpisode implements OpenEnvironment {
  readonly system: string;
  readonly systemParts: readonly string[];
  readonly rules: ConversationRules;

  constructor(
    private readonly deps: ThinkingBoxEnvironmentDeps,
    private readonly rows: ThinkingBoxEpisodeRows,
    private readonly task: Task,
    private readonly part: ThinkingBoxTaskPart,
    private readonly row: ThinkingBoxEpisodeRow,
    private readonly lease: string,
    readonly reattached: boolean,
  ) {
    // ThinkingBox's agent session starts with these system messages; a token renderer writes their join
    this.systemParts = part.systemMessages;
    this.system = part.systemMessages.join('\n\n');
    this.rules = {
      endsConversation: (text) => text.trim().endsWith(DONE_MARKER),
      // ThinkingBox counts every agent action (a message of calls, a visible message) against max_agent_sim_turns,
      // and allows max_user_sim_turns simulated replies after the query.
      ...(part.maxAgentSimTurns !== null ? { maxAgentTurns: part.maxAgentSimTurns } : {}),
      maxUserTurns: part.maxUserSimTurns + 1,
    };
  }

  get episodeId(): string {
    return this.row.episodeId;
  }

  get sessionId(): string {
    return this.row.sessionId;
  }

  async loadCheckpoint(): Promise<TurnCheckpoint | undefined> {
    return parseCheckpoint(this.row);
  }

  async saveCheckpoint(checkpoint: TurnCheckpoint): Promise<void> {
    await this.rows.saveCheckpoint(this.row.episodeId, this.lease, checkpoint);
  }

  async connectTools(): Promise<EnvironmentTools> {
    const tools = await ProxySessionTools.connect(this.deps.proxy.address, this.row.sessionId, {
      callTimeoutMs: this.deps.toolCallTimeoutMs,
    });
    try {
      const listed = await tools.listTools();
      const overridden = await this.deps.sidecar.request(
        {
          op: 'apply_tool_overrides',
          tools: listed.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
          overrides: this.part.toolOverrides,
        },
        OverriddenTools,
      );
      return new ThinkingBoxTools(tools, this.part, overridden.tools, this.deps.sidecar, () =>
        this.rows.countSent(this.row.episodeId, this.lease),
      );
    } catch (err) {
      await tools.close();
      throw err;
    }
  }

  userFor(request: EpisodeRequest): UserSimulator | undefined {
    if (request.user.kind !== 'llm') return undefined;
    return new ThinkingBoxUserSimulator(
      this.deps.sidecar,
      request.user.endpoint,
      this.task.query,
      this.task.userContext === '' ? null : this.task.userContext,
    );
  }

  async score(played: PlayedEpisode, request: EpisodeRequest): Promise<EpisodeScore> {
    const effects = await this.deps.proxy.getEffects(this.row.sessionId);
    const verdict = await this.deps.sidecar.request(
      {
        op: 'grade',
        uid: this.part.uid,
        testCode: this.part.testCode,
        messages: thinkingBoxMessages(played.conversation),
        toolCalls: thinkingBoxToolCalls(played.toolCalls),
        effects,
        initResult: this.row.initResult,
        sessionId: this.row.sessionId,
        judge: request.judge ? llmEndpointOf(request.judge.endpoint, request.judge.seed) : null,
      },
      GradeResponse,
    );
    if (verdict.isSystemError)
      throw new MalformedThinkingBoxTask(
        `${this.part.file}: test ${this.part.testName}: the test body raised ${verdict.errorType ?? 'an error'} at line ${verdict.lineno} (${verdict.lineContent.trim()}): ${lastLine(verdict.tb)}`,
      );
    return scoreThinkingBoxEpisode({
      taskId: this.task.id,
      taskSha256: taskSha256(this.task),
      uid: this.part.uid,
      verdict,
      effects,
      finishReason: played.finishReason,
    });
  }

  underLease<T>(fn: () => Promise<T>): Promise<T> {
    return this.rows.underLease(this.row.episodeId, this.lease, fn);
  }

  /** The session stays for the retried attempt (the janitor destroys it if none comes). */
  async detach(): Promise<void> {
    this.deps.sessions.release();
  }

  async teardown(): Promise<void> {
    await this.rows.remove(this.row.episodeId, this.lease).catch(() => undefined);
    this.deps.sessions.discard(this.row.sessionId);
  }
}

const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

const OverriddenTools = z.object({
  ok: z.literal(true),
  tools: z.array(
    z
      .object({
        name: z.string(),
        description: z.string(),
        input_schema: z.record(z.string(), z.unknown()),
        direct_response: z.string().nullable().optional(),
      })
      .loose(),
  ),
});

const DirectResponse = z.object({ ok: z.literal(true), content: z.string(), directResponse: z.string().nullable() });

/**
 * The session's tools as the agent sees them, ThinkingBox's way: the agent template's builtin tools, then the proxy's
 * tools with the scenario's overrides (applied by ThinkingBox's own code). A builtin is answered by the runner itself,
 * as ThinkingBox's agent session does (an empty answer; the conversation ends when it is an end-turn tool). A call to a
 * tool that does not exist is answered as ThinkingBox answers it, without reaching the proxy. A tool with a
 * `direct_response` override has its answer formatted by ThinkingBox's own code: the text is forwarded after the
 * message's answers as an agent message, and an answer that does not fit the template reads as ThinkingBox's error.
 */
class ThinkingBoxTools implements EnvironmentTools {
  readonly calls: ToolCallRecord[] = [];
  private readonly endTurn: Set<string>;
  private readonly builtin: Set<string>;
  private readonly schemas: ToolSchema[];
  /** The `direct_response` templates, by tool. */
  private readonly direct: Map<string, string>;

  constructor(
    private readonly tools: ProxySessionTools,
    part: ThinkingBoxTaskPart,
    served: z.infer<typeof OverriddenTools>['tools'],
    private readonly sidecar: ThinkingBoxSidecar,
    private readonly countSent: () => Promise<void>,
  ) {
    this.builtin = new Set(part.builtinTools.map((t) => t.name));
    this.direct = new Map(served.flatMap((t) => (t.direct_response ? [[t.name, t.direct_response] as const] : [])));
    this.endTurn = new Set([
      ...part.builtinTools.filter((t) => t.is_end_turn).map((t) => t.name),
      ...part.toolOverrides.filter((o) => o.is_end_turn).map((o) => o.name),
    ]);
    // in ThinkingBox's order: the agent template's builtin tools, then the session's (AgentSession.from_config)
    this.schemas = [
      ...part.builtinTools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input_schema })),
      ...served.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input_schema })),
    ];
  }

  resumeAfter(calls: readonly ToolCallRecord[]): void {
    this.calls.push(...calls.map((c) => ({ ...c, arguments: { ...c.arguments } })));
  }

  async listTools(): Promise<ToolSchema[]> {
    return this.schemas;
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const started = performance.now();
    let answer: { isError: boolean; text: string };
    let directResponse: string | null = null;
    if (!this.schemas.some((t) => t.name === name)) {
      answer = { isError: true, text: `Error: function '${name}' does not exist` };
    } else {
      await this.countSent();
      answer = this.builtin.has(name) ? { isError: false, text: '' } : await this.tools.callTool(name, args);
      const template = this.direct.get(name);
      if (template !== undefined && !this.builtin.has(name)) {
        const formatted = await this.sidecar.request(
          { op: 'direct_response', tool: name, result: answer.text, template },
          DirectResponse,
        );
        answer = { isError: answer.isError, text: formatted.content };
        directResponse = formatted.directResponse;
      }
    }
    this.calls.push({
      index: this.calls.length,
      tool: name,
      arguments: args,
      isError: answer.isError,
      result: answer.text,
      ms: performance.now() - started,
    });
    return {
      isError: answer.isError,
      content: [{ type: 'text', text: answer.text }],
      ...(this.endTurn.has(name) ? { endsConversation: true as const } : {}),
      ...(directResponse !== null ? { directResponse } : {}),
    };
  }

  close(): Promise<void> {
    return this.tools.close();
  }
}

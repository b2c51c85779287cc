import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { loadConfig } from '../../workers/config.js';
import { fromRoot } from '../../core/paths.js';
import { ChatClient } from '../../runtime/clients/chat-client.js';
import { LlmUserSimulator } from '../../runtime/clients/llm-user.js';
import { PolicyClient } from '../../runtime/clients/policy-client.js';
import { NO_USAGE, type UserSimulator } from '../../runtime/clients/user-simulator.js';
import { runAgentLoop, type LoopResult } from '../../runtime/episode/loop.js';
import { McpToolSession } from '../../runtime/episode/mcp-tool-session.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { qwen3Renderer } from '../../runtime/interpreter/index.js';
import type { AgentPolicy, AgentStep } from '../../runtime/policy/agent-policy.js';
import { LlmJudge } from '../../runtime/rubrics/judge.js';
import { CompletionsAgentPolicy } from '../../runtime/policy/completions-policy.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import { ChatEndpointConfig, PolicyClientConfig } from '../../schemas/clients.js';
import type { Conversation } from '../../schemas/conversation.js';
import { EpisodeLimits, EpisodeRequest } from '../../schemas/episode.js';
import { Trajectory } from '../../schemas/trajectory.js';
import type { Task, ToolCall } from '../../schemas/task.js';
import { uniqueName } from '../helpers/index.js';
import { FakeVllmServer } from './fake-vllm-server.js';
import { playEpisode } from './play-episode.js';
import { ScriptedCallsPolicy, ScriptedTextPolicy } from './scripted-policies.js';
import { finalStateHolds } from '../../environment/grader.js';

// Item 7 of issue 14, the runtime's bounds: a tool result's size, the calls of one message; and the clocks of issue 25
// (finding 3): the agent's clock counts its tool calls, never the waits on the policy server, the user simulator or
// the judge, each of which has its own per-call timeout. Real retail backend, real MCP session, the real loop.
const config = loadConfig();
let runtime: EpisodeRuntime;
const servers: FakeVllmServer[] = [];

before(async () => {
  runtime = await createEpisodeRuntime(config);
});
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await runtime.close();
});

const addressTask = (): Task =>
  runtime.tasks
    .taskSet(fromRoot('tasks', 'retail', 'retail-train-mini.manifest.json'))
    .tasks.find((t) => t.tags[0] === 'address_change')!;

test('the bounds have safe defaults in the schema, and an episode request gets them', () => {
  const defaults = EpisodeLimits.parse({});
  assert.deepEqual(
    [defaults.maxToolResultChars, defaults.maxToolCallsPerTurn, defaults.timeoutMs],
    [16_000, 16, 300_000],
  );
  const request = EpisodeRequest.parse({
    episodeId: 'e',
    taskId: 't',
    taskSet: 's',
    trial: 0,
    policy: { kind: 'oracle' },
    seed: 1,
  });
  assert.deepEqual(request.limits, defaults);
  assert.throws(() => EpisodeLimits.parse({ maxToolCallsPerTurn: 0 }), /maxToolCallsPerTurn/);
});

test('a tool result over maxToolResultChars is cut with a marker the agent reads; the record keeps it whole', async () => {
  const task = addressTask();
  const [lookup, update] = task.golden as [ToolCall, ToolCall];
  const { toolTurns, tools, grade } = await playEpisode(
    runtime,
    task,
    new ScriptedCallsPolicy([lookup, update, 'Your address is updated.']),
    { limits: { maxToolResultChars: 40 } },
  );
  const whole = tools.calls[0]!.result;
  assert.ok(whole.length > 40);
  assert.equal(
    toolTurns[0],
    `${whole.slice(0, 40)}\n[tool result cut: showing the first 40 of ${whole.length} characters]`,
  );
  assert.equal(finalStateHolds(grade), true, 'the cut changes what the agent reads, nothing else');
});

test('a message with more calls than maxToolCallsPerTurn runs none of them and is fed back; the episode can still pass', async () => {
  const task = addressTask();
  const [lookup, update] = task.golden as [ToolCall, ToolCall];
  const { toolTurns, recorded, grade, loop } = await playEpisode(
    runtime,
    task,
    new ScriptedCallsPolicy([[lookup, lookup, update], lookup, update, 'Your address is updated.']),
    {
      limits: { maxToolCallsPerTurn: 2 },
    },
  );
  assert.match(
    toolTurns[0]!,
    /^Error: your last message could not be executed, so no tool was called\.\n- 3 tool calls in one message; at most 2 are allowed per turn/,
  );
  assert.equal(loop.agentTurns[0]!.parseFailures, 1);
  assert.deepEqual(
    recorded.map((r) => r.tool),
    [lookup.tool, update.tool],
    'nothing of the refused message ran',
  );
  assert.equal(finalStateHolds(grade), true);
});

/** A policy whose every turn takes `ms` (test double for a model server under load); then it writes `text`. */
class SlowTextPolicy implements AgentPolicy {
  readonly interpretedBy = 'finalstate' as const;
  constructor(
    private readonly ms: number,
    private readonly texts: string[],
  ) {}
  private turn = 0;
  async next(conversation: Conversation): Promise<AgentStep> {
    await new Promise((resolve) => setTimeout(resolve, this.ms));
    return new ScriptedTextPolicy([this.texts[Math.min(this.turn++, this.texts.length - 1)]!]).next(conversation);
  }
  async finish() {
    return null;
  }
}

/** A user simulator whose replies take `ms` (test double for a user LLM under load). */
const slowUser = (ms: number): UserSimulator => ({
  opening: () => ({ text: 'Hi, I need help. Where is my order?', done: false, usage: NO_USAGE, model: null }),
  reply: async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { text: 'Thank you, that is all.', done: true, usage: NO_USAGE, model: null };
  },
});

/** An HTTP endpoint that accepts requests and never answers: a stalled server (its process stopped, say). */
async function stalledEndpoint(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(() => undefined);
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function withEpisodeTools<T>(label: string, run: (tools: McpToolSession) => Promise<T>): Promise<T> {
  const episode = await runtime.backend.open(uniqueName(label), addressTask());
  try {
    const wiring = await connectEpisodeTools(runtime.backend, episode);
    const tools = new McpToolSession(wiring.client, () => wiring.close());
    try {
      return await run(tools);
    } finally {
      await tools.close();
    }
  } finally {
    await runtime.backend.teardown(episode);
  }
}

test("waiting on the policy server and the user simulator is not on the agent's clock: slow turns past timeoutMs, and the episode goes on", async () => {
  const loop = await withEpisodeTools('bounds-slow', (tools) =>
    runAgentLoop({
      system: 'test',
      policy: new SlowTextPolicy(400, ['Let me check that for you: where is it going?']),
      tools,
      user: slowUser(400),
      limits: EpisodeLimits.parse({ timeoutMs: 300 }),
    }),
  );
  assert.equal(loop.finishReason, 'user_done', 'a 400 ms turn and a 400 ms reply against a 300 ms clock');
  assert.ok(loop.timings.agentMs >= 400 && loop.timings.userMs >= 400);
});

test('a policy that never stops ends on its own side: max_turns, whatever the clock', async () => {
  const task = addressTask();
  const [lookup] = task.golden as [ToolCall];
  const loop = await withEpisodeTools('bounds-loop', (tools) =>
    runAgentLoop({
      system: 'test',
      policy: new ScriptedCallsPolicy([lookup]),
      tools,
      user: slowUser(0),
      limits: EpisodeLimits.parse({ maxAgentTurns: 5 }),
    }),
  );
  assert.equal(loop.finishReason, 'max_turns');
  assert.equal(loop.agentTurns.length, 5);
});

test('a user simulator or judge that never answers is an InfrastructureError at its per-call timeout, naming it and the wait', async () => {
  const stalled = await stalledEndpoint();
  try {
    const endpoint = ChatEndpointConfig.parse({
      baseUrl: stalled.url,
      model: 'user-llm',
      timeoutMs: 500,
      maxRetries: 0,
    });
    const task = addressTask();
    await assert.rejects(
      withEpisodeTools('bounds-user-stall', (tools) =>
        runAgentLoop({
          system: 'test',
          policy: new ScriptedCallsPolicy(['Where should it go?']),
          tools,
          user: new LlmUserSimulator(new ChatClient(endpoint, 'user-simulator'), task),
          limits: EpisodeLimits.parse({ timeoutMs: 100 }),
        }),
      ),
      (err: unknown) =>
        err instanceof InfrastructureError &&
        err.component === 'user-simulator' &&
        /user-simulator at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions timed out after 500 ms/.test(err.message),
    );
    const judge = new LlmJudge(new ChatClient({ ...endpoint, model: 'judge-llm' }, 'judge'), 0);
    await assert.rejects(
      judge.judge({ kind: 'judge', description: 'polite', question: 'Was it polite?' }, 0, {
        system: '',
        tools: [],
        turns: [{ role: 'user', content: 'hi' }],
      }),
      (err: unknown) =>
        err instanceof InfrastructureError && err.component === 'judge' && /timed out after 500 ms/.test(err.message),
    );
  } finally {
    await stalled.close();
  }
});

test("a served policy's slow turn past the clock is waited for: the episode goes on and its trajectory does not drift", async () => {
  const task = addressTask();
  const [lookup] = task.golden as [ToolCall];
  const server = await new FakeVllmServer({
    policyVersion: 'v1',
    slowTurn: { turn: 1, ms: 2_000 },
    respond: ({ prompt }) =>
      prompt.includes('<tool_response>')
        ? 'Your order is on its way.'
        : `<tool_call>\n{"name": "get_order", "arguments": {"order_id": "${String(lookup.arguments.order_id)}"}}\n</tool_call>`,
  }).start();
  servers.push(server);
  const client = new PolicyClient(
    PolicyClientConfig.parse({ baseUrl: server.url, model: server.model, sampling: { maxTokens: 256, seed: 2 } }),
  );
  const policy = new CompletionsAgentPolicy(client, qwen3Renderer);
  const { loop, recorded } = await playEpisode(runtime, task, policy, { limits: { timeoutMs: 1_500 } });
  assert.notEqual(loop.finishReason, 'timeout', 'a 2 s sample against a 1.5 s clock is not the agent running out');
  assert.equal(loop.agentTurns.length, 2);
  assert.deepEqual(
    recorded.map((r) => r.tool),
    ['get_order'],
  );
  const trajectory = Trajectory.parse(await policy.finish(loop.conversation));
  assert.equal(trajectory.drift, null);
  assert.equal(trajectory.trainable, true);
});

test('a served policy cancelled mid-sampling (the activity cancelled) keeps no part of that turn: its trajectory does not drift', async () => {
  const task = addressTask();
  const [lookup] = task.golden as [ToolCall];
  const server = await new FakeVllmServer({
    policyVersion: 'v1',
    slowTurn: { turn: 1, ms: 5_000 },
    respond: () =>
      `<tool_call>\n{"name": "get_order", "arguments": {"order_id": "${String(lookup.arguments.order_id)}"}}\n</tool_call>`,
  }).start();
  servers.push(server);
  const client = new PolicyClient(
    PolicyClientConfig.parse({ baseUrl: server.url, model: server.model, sampling: { maxTokens: 256, seed: 2 } }),
  );
  const policy = new CompletionsAgentPolicy(client, qwen3Renderer);
  const cancel = new AbortController();
  let loop: LoopResult | undefined;
  await withEpisodeTools('bounds-cancel', async (tools) => {
    const running = runAgentLoop({
      system: 'test',
      policy,
      tools,
      user: slowUser(0),
      limits: EpisodeLimits.parse({}),
      signal: cancel.signal,
      onTurnCompleted: async (state) => {
        loop = { ...structuredClone(state), finishReason: 'max_turns' };
        if (state.agentTurns.length === 1) setTimeout(() => cancel.abort(new Error('activity cancelled')), 300);
      },
    });
    await assert.rejects(running, /activity cancelled/);
  });
  assert.equal(loop?.agentTurns.length, 1, 'the cancelled turn is not in the conversation');
  const trajectory = Trajectory.parse(await policy.finish(loop!.conversation));
  assert.equal(trajectory.drift, null, 'the trajectory ends where the conversation does');
});

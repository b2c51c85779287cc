import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../infra/config.js';
import { fromRoot } from '../../core/paths.js';
import { PolicyClient } from '../../runtime/clients/policy-client.js';
import { NO_USAGE, type UserSimulator } from '../../runtime/clients/user-simulator.js';
import { runAgentLoop } from '../../runtime/episode/loop.js';
import { McpToolSession } from '../../runtime/episode/mcp-tool-session.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../wiring/episode-runtime.js';
import { qwen3Renderer } from '../../runtime/interpreter/index.js';
import type { AgentPolicy } from '../../runtime/policy/agent-policy.js';
import { CompletionsAgentPolicy } from '../../runtime/policy/completions-policy.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import { PolicyClientConfig } from '../../schemas/clients.js';
import { EpisodeLimits, EpisodeRequest } from '../../schemas/episode.js';
import { Trajectory } from '../../schemas/trajectory.js';
import type { Task, ToolCall } from '../../schemas/task.js';
import { uniqueName } from '../helpers/index.js';
import { FakeVllmServer } from './fake-vllm-server.js';
import { playEpisode } from './play-episode.js';
import { ScriptedCallsPolicy } from './scripted-policies.js';

// Item 7 of issue 14, the runtime's bounds: a tool result's size, the calls of one message, and an episode wall
// clock that also stops a turn in flight. Real retail backend, real MCP session, the real loop.
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
    .taskSet(fromRoot('tasks', 'retail-train-mini.manifest.json'))
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
  assert.equal(grade.pass, true, 'the cut changes what the agent reads, nothing else');
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
  assert.equal(grade.pass, true);
});

/** A policy that never answers on its own (test double for a hung model server); it gives up when the signal fires. */
class HangingPolicy implements AgentPolicy {
  readonly interpretedBy = 'finalstate' as const;
  gaveUp = false;
  next(_conversation: unknown, options: { signal?: AbortSignal } = {}): Promise<never> {
    return new Promise((_, reject) =>
      options.signal?.addEventListener('abort', () => ((this.gaveUp = true), reject(options.signal!.reason)), {
        once: true,
      }),
    );
  }
  async finish() {
    return null;
  }
}

/** A user simulator that opens and then never replies (test double for a hung user LLM). */
const silent: UserSimulator = {
  opening: () => ({ text: 'Hi, I need help.', done: false, usage: NO_USAGE, model: null }),
  reply: () => new Promise(() => undefined),
};

test('the wall clock stops a turn in flight: a hung policy, then a hung user simulator, end with finish reason timeout', async () => {
  const task = addressTask();
  const episode = await runtime.backend.open(uniqueName('bounds-timeout'), task);
  try {
    const wiring = await connectEpisodeTools(runtime.backend, episode);
    const tools = new McpToolSession(wiring.client, () => wiring.close());
    try {
      const limits = EpisodeLimits.parse({ timeoutMs: 300 });
      const policy = new HangingPolicy();
      let started = performance.now();
      const hung = await runAgentLoop({ system: 'test', policy, tools, user: silent, limits });
      assert.equal(hung.finishReason, 'timeout');
      assert.ok(policy.gaveUp, 'the policy was told to give up');
      assert.ok(performance.now() - started < 3_000, 'it did not wait for the hung turn');

      started = performance.now();
      const silentUser = await runAgentLoop({
        system: 'test',
        policy: new ScriptedCallsPolicy(['Anything else?']),
        tools,
        user: silent,
        limits,
      });
      assert.equal(silentUser.finishReason, 'timeout');
      assert.ok(performance.now() - started < 3_000);
    } finally {
      await tools.close();
    }
  } finally {
    await runtime.backend.teardown(episode);
  }
});

test('a served policy stopped mid-sampling at the deadline keeps no part of that turn: its trajectory does not drift', async () => {
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
  const started = performance.now();
  const { loop, recorded } = await playEpisode(runtime, task, policy, { limits: { timeoutMs: 1_500 } });
  assert.equal(loop.finishReason, 'timeout');
  assert.ok(performance.now() - started < 4_500, 'the slow completion was abandoned at the deadline');
  assert.equal(loop.agentTurns.length, 1, 'the abandoned turn is not in the conversation');
  assert.deepEqual(
    recorded.map((r) => r.tool),
    ['get_order'],
  );
  const trajectory = Trajectory.parse(await policy.finish(loop.conversation));
  assert.equal(trajectory.drift, null, 'the trajectory ends where the conversation does');
  assert.equal(trajectory.trainable, true);
});

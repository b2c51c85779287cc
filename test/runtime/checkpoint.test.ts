import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restorePolicy, turnCheckpoint } from '../../runtime/episode/checkpoint.js';
import { runAgentLoop } from '../../runtime/episode/loop.js';
import type { ToolSession } from '../../runtime/episode/tool-session.js';
import type { ToolResultLike } from '../../runtime/interpreter/tool-result.js';
import { qwen3Renderer } from '../../runtime/interpreter/index.js';
import { ScriptedUserSimulator } from '../../runtime/clients/scripted-user.js';
import type { PolicyClient } from '../../runtime/clients/policy-client.js';
import { CompletionsAgentPolicy } from '../../runtime/policy/completions-policy.js';
import { OraclePolicy } from '../../runtime/policy/oracle-policy.js';
import type { Tokenizer } from '../../runtime/trajectory/tokenizer.js';
import { TrajectoryBuilder } from '../../runtime/trajectory/builder.js';
import { TurnCheckpoint } from '../../schemas/checkpoint.js';
import type { ToolSchema } from '../../schemas/conversation.js';
import { EpisodeLimits } from '../../schemas/episode.js';
import type { Task } from '../../schemas/task.js';

// Plain unit tests of the turn checkpoint: no database, no server. The episode-level tests against real PostgreSQL,
// MCP and Temporal are test/pipeline/resume*.test.ts.

const tools: ToolSchema[] = [
  {
    name: 'get_thing',
    description: 'Read a thing.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
  {
    name: 'make_thing',
    description: 'Create a thing.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
];

/** The oracle reads only the golden calls and the rubrics of its task. */
const task = {
  query: 'Please make me two things.',
  userFacts: {},
  userDecisions: {},
  rubrics: [],
  golden: [
    { tool: 'get_thing', arguments: { id: 'T-1' } },
    { tool: 'make_thing', arguments: { name: 'a' } },
    { tool: 'make_thing', arguments: { name: 'b' } },
  ],
} as unknown as Task;

/** TEST DOUBLE for the episode's MCP session: answers every call and logs it (its "effects"). */
class LoggingToolSession implements ToolSession {
  readonly effects: string[] = [];
  async listTools() {
    return tools;
  }
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResultLike> {
    this.effects.push(`${name}(${JSON.stringify(args)})`);
    return { isError: false, content: [{ type: 'text', text: JSON.stringify({ done: name, ...args }) }] };
  }
  async close() {}
}

/** Counts the policy's turns. */
function counted(policy: OraclePolicy) {
  const counter = { asked: 0 };
  const next = policy.next.bind(policy);
  policy.next = (conversation) => {
    counter.asked++;
    return next(conversation);
  };
  return counter;
}

const limits = EpisodeLimits.parse({});

test('a loop resumed from the checkpoint of turn k ends exactly as the uninterrupted run, asking the policy only for the turns after k', async () => {
  const whole = new OraclePolicy(task, qwen3Renderer);
  const wholeTools = new LoggingToolSession();
  const checkpoints: TurnCheckpoint[] = [];
  const uninterrupted = await runAgentLoop({
    system: 'sys',
    policy: whole,
    tools: wholeTools,
    user: new ScriptedUserSimulator(task),
    limits,
    // serialised at once, as the store does: the state handed over is live
    onTurnCompleted: async (state) =>
      void checkpoints.push(
        TurnCheckpoint.parse(JSON.parse(JSON.stringify(turnCheckpoint('ep-1', state, whole, [], [])))),
      ),
  });
  assert.equal(uninterrupted.agentTurns.length, 4, 'three calls and the closing message');
  assert.equal(checkpoints.length, 3, 'one checkpoint after every turn that did not end the episode');
  assert.deepEqual(
    checkpoints.map((c) => c.loop.agentTurns.length),
    [1, 2, 3],
  );

  for (const [k, checkpoint] of checkpoints.entries()) {
    const policy = new OraclePolicy(task, qwen3Renderer);
    restorePolicy(policy, checkpoint);
    const asked = counted(policy);
    const session = new LoggingToolSession();
    const resumed = await runAgentLoop({
      system: 'ignored on resume',
      policy,
      tools: session,
      user: new ScriptedUserSimulator(task),
      limits,
      resume: checkpoint.loop,
    });
    assert.deepEqual(resumed.conversation, uninterrupted.conversation, `resumed after turn ${k + 1}`);
    assert.deepEqual(resumed.agentTurns, uninterrupted.agentTurns);
    assert.equal(resumed.finishReason, uninterrupted.finishReason);
    assert.equal(resumed.userTurns, uninterrupted.userTurns);
    assert.equal(asked.asked, 4 - (k + 1), 'turns before the checkpoint are not asked again');
    assert.deepEqual(session.effects, wholeTools.effects.slice(k + 1), 'only the calls after the checkpoint are made');
  }
});

test('without its policy state, a restored oracle would start over: the state is what makes the resume right', async () => {
  const whole = new OraclePolicy(task, qwen3Renderer);
  let second: TurnCheckpoint | undefined;
  await runAgentLoop({
    system: 'sys',
    policy: whole,
    tools: new LoggingToolSession(),
    user: new ScriptedUserSimulator(task),
    limits,
    onTurnCompleted: async (state) => {
      if (state.agentTurns.length === 2)
        second = TurnCheckpoint.parse(JSON.parse(JSON.stringify(turnCheckpoint('ep-1', state, whole, [], []))));
    },
  });
  assert.deepEqual(second!.policy, { kind: 'oracle', nextGolden: 2 });
  const fresh = new OraclePolicy(task, qwen3Renderer);
  const session = new LoggingToolSession();
  await runAgentLoop({
    system: 'sys',
    policy: fresh,
    tools: session,
    user: new ScriptedUserSimulator(task),
    limits,
    resume: second!.loop,
  });
  assert.equal(session.effects[0], 'get_thing({"id":"T-1"})', 'an unrestored oracle repeats its first call');
  assert.throws(
    () =>
      restorePolicy(fresh, {
        ...second!,
        policy: {
          kind: 'completions',
          turnIndex: 0,
          trajectory: {
            tokenIds: [],
            lossMask: [],
            rolloutLogprobs: [],
            segments: [],
            policyVersions: [],
            text: '',
            drift: null,
          },
        },
      }),
    /expected a oracle policy state, found completions/,
  );
});

test("the agent's clock continues where the checkpoint left it", async () => {
  const policy = new OraclePolicy(task, qwen3Renderer);
  const state = {
    conversation: { system: 's', tools, turns: [{ role: 'user' as const, content: task.query }] },
    agentTurns: [],
    userTurns: 1,
    usage: {
      agent: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
      user: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
    },
    userModel: null,
    timings: { agentMs: 0, toolsMs: 0, userMs: 0 },
    elapsedMs: 10_000,
  };
  const result = await runAgentLoop({
    system: 's',
    policy,
    tools: new LoggingToolSession(),
    user: new ScriptedUserSimulator(task),
    limits: EpisodeLimits.parse({ timeoutMs: 5_000 }),
    resume: state,
  });
  assert.equal(result.finishReason, 'timeout');
  assert.equal(result.agentTurns.length, 0);
});

/** TEST DOUBLE tokenizer: one token per character. */
const charTokenizer: Tokenizer = {
  tokenize: async (text) => [...text].map((c) => c.charCodeAt(0)),
  detokenize: async (ids) => String.fromCharCode(...ids),
};

test('a trajectory builder restored from its checkpointed state finishes exactly like the one that was never interrupted', async () => {
  const sample = (text: string, version = 'v1') => ({
    tokenIds: [...text].map((c) => c.charCodeAt(0)),
    logprobs: [...text].map(() => -0.5),
    policyVersion: version,
    finishReason: 'stop' as const,
  });
  const a = new TrajectoryBuilder(charTokenizer);
  await a.observe('<user>hi</user><agent>');
  a.appendSample(sample('call</agent>'), 'call</agent>');
  const saved = TurnCheckpoint.shape.policy.parse({
    kind: 'completions',
    turnIndex: 1,
    trajectory: JSON.parse(JSON.stringify(a.state())),
  });
  const b = new TrajectoryBuilder(charTokenizer);
  assert.ok(saved?.kind === 'completions');
  b.restore(saved.trajectory);
  for (const builder of [a, b]) {
    await builder.observe('<user>hi</user><agent>call</agent><tool>ok</tool><agent>');
    builder.appendSample(sample('done</agent>', 'v2'), 'done</agent>');
  }
  const rendered = '<user>hi</user><agent>call</agent><tool>ok</tool><agent>done</agent>';
  assert.deepEqual(await b.finish(rendered), await a.finish(rendered));
  assert.equal((await b.finish(rendered)).trainable, true);
  assert.throws(() => b.restore(a.state()), /needs an empty builder/);
});

test('a restored completions policy samples its next turn with the seed of that turn, on the trajectory so far', async () => {
  const seen: { seed?: number; prompt: number[] }[] = [];
  /** TEST DOUBLE for the policy server client: records seeds and prompts, answers a closing message. */
  const client = {
    config: { sampling: { seed: 100 } },
    tokenize: charTokenizer.tokenize,
    detokenize: charTokenizer.detokenize,
    async complete(request: { promptTokenIds: readonly number[]; seed?: number }) {
      seen.push({ ...(request.seed !== undefined ? { seed: request.seed } : {}), prompt: [...request.promptTokenIds] });
      const ids = [...'All done.<|im_end|>'].map((c) => c.charCodeAt(0));
      return {
        tokenIds: ids,
        logprobs: ids.map(() => -0.1),
        model: 'm',
        policyVersion: 'v',
        finishReason: 'stop' as const,
        usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 },
      };
    },
  } as unknown as PolicyClient;
  const conversation = { system: 's', tools, turns: [{ role: 'user' as const, content: 'hi' }] };
  const first = new CompletionsAgentPolicy(client, qwen3Renderer, { seed: 7 });
  const step = await first.next(conversation);
  const after = {
    ...conversation,
    turns: [...conversation.turns, step.turn, { role: 'user' as const, content: 'more' }],
  };
  const state = first.saveState();
  const resumed = new CompletionsAgentPolicy(client, qwen3Renderer, { seed: 7 });
  resumed.restoreState(JSON.parse(JSON.stringify(state)));
  await resumed.next(after);
  await first.next(after);
  assert.deepEqual(
    seen.map((s) => s.seed),
    [7, 8, 8],
    'turn 1 is seeded 7 + 1 whether or not the episode was resumed',
  );
  assert.deepEqual(seen[1], seen[2], 'the resumed policy sends the very prompt tokens the uninterrupted one sends');
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { InfrastructureError } from '../../core/errors.js';
import { fromRoot } from '../../core/paths.js';
import { loadConfig } from '../../workers/config.js';
import { policyFor } from '../../runtime/episode/episode-runner.js';
import type { EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { failureFeedback, pythonJson, qwen3Renderer } from '../../runtime/interpreter/index.js';
import { TrajectoryBuilder } from '../../runtime/trajectory/builder.js';
import { EpisodeRecord, EpisodeRequest } from '../../schemas/episode.js';
import type { ToolCall } from '../../schemas/task.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { SlowedPolicy } from '../../testkit/pipeline/slowed-policy.js';
import { uniqueName } from '../helpers/index.js';
import { FakeVllmServer } from './fake-vllm-server.js';
import { tools } from './fixtures.js';

// Finding 5 of issue 25: model output built to break the runtime (a megabyte argument, arguments nested thousands
// deep, a segment of more tokens than a spread call takes). Each must come back to the model as a parse failure, or
// end the episode with a model-side finish reason; none may crash the attempt (which Temporal would retry with the
// same seed until its attempts ran out, a model failure treated as infrastructure).

const call = (name: string, argumentsJson: string) =>
  `<tool_call>\n{"name": "${name}", "arguments": ${argumentsJson}}\n</tool_call>`;
const nested = (depth: number) => `${'{"a": '.repeat(depth)}1${'}'.repeat(depth)}`;
const megabyte = 'x'.repeat(1 << 20);

describe('the interpreter bounds what a call may hold, and says so', () => {
  const cases = [
    { name: 'a 1 MiB argument', text: call('find_order', `{"order_id": "${megabyte}"}`), what: /64 KiB/ },
    { name: 'arguments nested 5,000 deep', text: call('find_order', `{"order_id": ${nested(5_000)}}`), what: /32/ },
    { name: 'arguments nested 20,000 deep', text: call('refund_order', nested(20_000)), what: /32/ },
    { name: 'a 1 MiB tool name', text: call(megabyte, '{}'), what: /128 characters/ },
    { name: 'arguments as 1 MiB of JSON text', text: call('find_order', JSON.stringify(megabyte)), what: /64 KiB/ },
  ];
  for (const c of cases) {
    test(`${c.name}: an oversized_call failure fed back in a short message; the turn keeps none of it`, () => {
      const parsed = qwen3Renderer.parseOutput(c.text, tools);
      assert.deepEqual(
        parsed.failures.map((f) => f.kind),
        ['oversized_call'],
      );
      assert.match(parsed.failures[0]!.message, c.what);
      assert.deepEqual(parsed.calls, []);
      assert.deepEqual(parsed.turn.toolCalls, [], 'the call is not kept (its text stays in raw)');
      assert.equal(parsed.turn.raw, c.text);
      const feedback = failureFeedback(parsed.failures).content;
      assert.ok(feedback.length < 1_000, `the feedback is ${feedback.length} characters`);
      // everything downstream of the turn serialises it: the checkpoint, the record, the loop's resume
      assert.doesNotThrow(() => JSON.stringify(structuredClone(parsed.turn)));
    });
  }

  test('a call just inside the bounds still runs', () => {
    const parsed = qwen3Renderer.parseOutput(call('find_order', `{"order_id": "${'x'.repeat(60_000)}"}`), tools);
    assert.deepEqual(parsed.failures, []);
    assert.equal(parsed.calls.length, 1);
  });

  test('thousands of problems in one message: the feedback lists the first ones and counts the rest', () => {
    const keys = Array.from({ length: 5_000 }, (_, i) => `"k${i}": ${i}`).join(', ');
    const parsed = qwen3Renderer.parseOutput(call('find_order', `{"order_id": "O-1", ${keys}}`), tools);
    assert.equal(parsed.failures.length, 5_000);
    const feedback = failureFeedback(parsed.failures).content;
    assert.ok(feedback.length < 4_000, `the feedback is ${feedback.length} characters`);
    assert.match(feedback, /and 4,99\d more problems/);
  });

  test('a value quoted in a failure message is cut: a 60,000-character wrong value is not echoed back whole', () => {
    const parsed = qwen3Renderer.parseOutput(
      call('refund_order', `{"order_id": "O-1", "amount_cents": "${'9'.repeat(60_000)}x"}`),
      tools,
    );
    assert.equal(parsed.failures[0]?.kind, 'invalid_argument');
    assert.ok(parsed.failures[0]!.message.length < 300, `the message is ${parsed.failures[0]!.message.length}`);
  });
});

describe('the trajectory builder takes segments of any length', () => {
  const tokenizer = {
    tokenize: async (text: string) => Array.from(text, (c) => c.codePointAt(0)!),
    detokenize: async () => '',
  };

  test('a sampled segment of 200,000 tokens, then a restore of the 400,000-token state into a fresh builder', async () => {
    const builder = new TrajectoryBuilder(tokenizer);
    await builder.observe('p'.repeat(200_000));
    const ids = new Array<number>(200_000).fill(7);
    builder.appendSample(
      { tokenIds: ids, logprobs: ids.map(() => -0.5), policyVersion: 'v', finishReason: 'length' },
      'y'.repeat(200_000),
    );
    const state = builder.state();
    assert.equal(state.tokenIds.length, 400_000);
    const resumed = new TrajectoryBuilder(tokenizer);
    resumed.restore(state);
    assert.equal(resumed.tokens.length, 400_000);
    assert.deepEqual(resumed.state().lossMask.slice(199_999, 200_001), [0, 1]);
  });
});

// The same outputs written by a served model (FakeVllmServer, a FAKE standing in for vLLM, which needs a GPU) through
// the real DatabaseEpisodeRunner: real PostgreSQL, the domain's tools over a real MCP session, the turn checkpoint,
// the trajectory and the episode record in the control database.
describe('hostile output through the real episode runner', () => {
  const config = loadConfig();
  const taskSet = fromRoot('tasks', 'retail', 'retail-train-mini.manifest.json');
  let runtime: EpisodeRuntime;
  let server: FakeVllmServer;
  /** What the fake model writes on the first turn of the current test's episode. */
  let firstTurn: string | undefined;
  /** Episodes whose first attempt is cut off (an outage) before its second turn. */
  const cutBeforeTurn2 = new Set<string>();
  const episodes: string[] = [];
  let golden: [ToolCall, ToolCall];
  let taskId: string;

  before(async () => {
    const task = (await createEpisodeRuntime(config).then(async (r) => {
      const t = r.tasks.taskSet(taskSet).tasks.find((x) => x.tags[0] === 'address_change')!;
      await r.close();
      return t;
    }))!;
    taskId = task.id;
    golden = task.golden as [ToolCall, ToolCall];
    const render = (c: ToolCall) => call(c.tool, pythonJson(c.arguments));
    server = await new FakeVllmServer({
      maxModelLen: 10_000_000,
      respond: ({ prompt }) => {
        const turn = prompt.split('<|im_start|>assistant').length - 1;
        if (turn === 1) return firstTurn ?? render(golden[0]);
        if (turn === 2) return render(golden[0]);
        if (turn === 3) return render(golden[1]);
        return 'The shipping address is updated.';
      },
    }).start();
    runtime = await createEpisodeRuntime(config, {
      policyFor: (request, t) => {
        const inner = policyFor(request, t);
        if (!cutBeforeTurn2.has(request.episodeId)) return inner;
        cutBeforeTurn2.delete(request.episodeId);
        return new SlowedPolicy(inner, async (turn) => {
          if (turn === 2) throw new InfrastructureError('simulated outage before turn 2', 'test');
        });
      },
    });
  });
  after(async () => {
    if (episodes.length) await runtime.control.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [episodes]);
    await runtime.close();
    await server.stop();
  });

  const request = (key: string) => {
    const episodeId = uniqueName(`hostile-${key}`);
    episodes.push(episodeId);
    return EpisodeRequest.parse({
      episodeId,
      taskId,
      taskSet,
      trial: 0,
      seed: 5,
      policy: {
        kind: 'served',
        client: { baseUrl: server.url, model: server.model, sampling: { maxTokens: 500_000 } },
      },
      limits: { maxContextTokens: 10_000_000, maxTotalTokens: 10_000_000 },
    });
  };

  const stored = async (episodeId: string) =>
    EpisodeRecord.parse(
      (await runtime.control.query('SELECT record FROM episodes WHERE episode_id = $1', [episodeId])).rows[0]?.record,
    );

  const hostile = [
    // 300,000 characters: 300,000 tokens of the toy tokenizer, past the ~125,000 a spread call takes
    { key: 'argument-300k', text: () => call('get_order', `{"order_id": "${'x'.repeat(300_000)}"}`) },
    { key: 'nested-5000', text: () => call('get_order', `{"order_id": ${nested(5_000)}}`) },
    { key: 'nested-20000', text: () => call('no_such_tool', nested(20_000)) },
  ];
  for (const h of hostile) {
    test(`${h.key}: the model reads why, corrects itself, and the episode passes`, async () => {
      const req = request(h.key);
      firstTurn = h.text();
      const outcome = await runtime.runner.run(req);
      assert.equal(outcome.error, null);
      assert.equal(outcome.reward, 1);
      const record = await stored(req.episodeId);
      const feedback = record.transcript.turns.find((t) => t.role === 'tool')!;
      assert.match(feedback.content, /^Error: your last message could not be executed[\s\S]*(64 KiB|32 levels)/);
      assert.equal(record.turns[0]!.parseFailures, 1);
    });
  }

  test('a 130,000-token segment, and a resumed attempt that restores that trajectory', async () => {
    const req = request('long-segment');
    firstTurn = `<think>\n${'z'.repeat(130_000)}\n</think>\n\n${call(golden[0].tool, pythonJson(golden[0].arguments))}`;
    cutBeforeTurn2.add(req.episodeId);
    await assert.rejects(runtime.runner.run(req), InfrastructureError, 'the first attempt is cut off by an outage');
    const outcome = await runtime.runner.run(req);
    assert.equal(outcome.reward, 1);
    const record = await stored(req.episodeId);
    assert.deepEqual(record.resumedAt, [1], 'the retry resumed after the long turn');
    assert.ok(record.outcome.trainable, 'the restored trajectory did not drift');
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { InfrastructureError } from '../../core/errors.js';
import { readTaskSet } from '../../environment/task-set.js';
import { ThinkingBoxEpisodeRows } from '../../environment/thinkingbox/episode-rows.js';
import { collectDeadSessions } from '../../environment/thinkingbox/janitor.js';
import { ThinkingBoxProxyClient } from '../../environment/thinkingbox/proxy-client.js';
import { ProxySessionTools } from '../../environment/thinkingbox/proxy-tools.js';
import { MalformedThinkingBoxTask, ThinkingBoxSidecar } from '../../environment/thinkingbox/sidecar.js';
import { thinkingBoxHome } from '../../environment/thinkingbox/home.js';
import { thinkingBoxMessages } from '../../runtime/episode/environments/thinkingbox-messages.js';
import { asChatTool, chatMessages } from '../../runtime/policy/chat-policy.js';
import * as thinkingbox from '../../infra/stack/thinkingbox.js';
import { DatabaseEpisodeRunner } from '../../runtime/episode/episode-runner.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { isWriteCall, verifyThinkingBoxTasks } from '../../runtime/episode/environments/thinkingbox-verify.js';
import { OracleRunResponse } from '../../schemas/thinkingbox.js';
import type { EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { TaskCatalog } from '../../runtime/episode/task-catalog.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import type { Task, ToolCall } from '../../schemas/task.js';
import { loadConfig } from '../../workers/config.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { controlPool } from '../../workers/stores.js';
import { inBatches, uniqueName } from '../helpers/index.js';
import { ThinkingBoxSessionPool } from '../../environment/thinkingbox/session-pool.js';
import { thinkingBoxRunner } from '../../testkit/thinkingbox-runner.js';
import { importProjectTasks, thinkingBoxSkip } from '../helpers/thinkingbox.js';

// ThinkingBox environments on ThinkingBox's own session proxy and business servers (from THINKINGBOX_HOME, started by
// `dev up`), graded by ThinkingBox's own test runner in its sidecar: the project's tasks over all five business
// scenarios, whole episodes through the real episode runner.
const config = loadConfig();
const skip = thinkingBoxSkip(config);
let runtime: EpisodeRuntime;
let manifest: string;
let tasks: Task[];
const episodeIds: string[] = [];

/** The runtime's catalog with one task's ThinkingBox part changed, for the fault cases. */
class Altered extends TaskCatalog {
  change: ((t: Task) => Task) | undefined;
  override get(set: string, id: string): Task {
    const task = super.get(set, id);
    return this.change ? this.change(task) : task;
  }
}
const altered = new Altered();

/** Run `fn` with every task's ThinkingBox part changed by `change` (for the runner over `altered`). */
async function withThinkingBoxPart(
  change: (part: NonNullable<Task['thinkingbox']>) => Partial<NonNullable<Task['thinkingbox']>>,
  fn: () => Promise<void>,
): Promise<void> {
  altered.change = (t) => ({ ...t, thinkingbox: { ...t.thinkingbox!, ...change(t.thinkingbox!) } });
  try {
    await fn();
  } finally {
    altered.change = undefined;
  }
}
let alteredRunner: DatabaseEpisodeRunner;

const request = (task: Task, calls: ToolCall[] | undefined, extra: Record<string, unknown> = {}) => {
  const episodeId = uniqueName('tb-ep');
  episodeIds.push(episodeId);
  return EpisodeRequest.parse({
    episodeId,
    taskId: task.id,
    taskSet: manifest,
    trial: 0,
    policy: { kind: 'oracle', ...(calls ? { calls } : {}) },
    user: { kind: 'scripted' },
    seed: 0,
    limits: { maxAgentTurns: task.golden.length + 2 },
    ...extra,
  });
};

before(async () => {
  if (skip) return;
  manifest = await importProjectTasks(config);
  tasks = readTaskSet(manifest.replace(/\.manifest\.json$/, '.jsonl')).tasks;
  runtime = await createEpisodeRuntime(config);
  alteredRunner = new DatabaseEpisodeRunner({ ...runtime.runnerDeps, tasks: altered });
});
after(async () => {
  if (skip) return;
  if (episodeIds.length) await runtime.control.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [episodeIds]);
  await runtime.close();
});

test('the project tasks: over all five business scenarios, each with golden calls', { skip }, () => {
  const scenarios = new Set(tasks.map((t) => t.thinkingbox!.scenario));
  assert.deepEqual([...scenarios].sort(), [
    'external_booking_v1',
    'sandbox_auto_insurance',
    'sandbox_consulting',
    'sandbox_external_retail',
    'sandbox_neobank_support_v1',
  ]);
  assert.ok(tasks.length >= 40, `${tasks.length} tasks`);
  assert.ok(tasks.every((t) => t.golden.length > 0));
  // no Typesense here: every scenario's sources were left out, and the set says so
  assert.ok(tasks.every((t) => t.thinkingbox!.droppedSources.includes(t.thinkingbox!.scenario)));
});

test(
  'oracle passes on every task; the no-op agent and mutated oracles fail, on a task of each scenario',
  { skip, timeout: 600_000 },
  async () => {
    // the no-op and the mutations on one task of each scenario (the whole set: `tasks verify`, in the closing notes);
    // on a pool without spares, since every task has a server configuration of its own
    const byScenario = new Map<string, Task[]>();
    for (const t of tasks) byScenario.set(t.domain, [...(byScenario.get(t.domain) ?? []), t]);
    const mutated = new Set([...byScenario.values()].map((ts) => ts[0]!.id));
    const proxy = new ThinkingBoxProxyClient(thinkingbox.proxyAddress(config));
    const sessions = new ThinkingBoxSessionPool(proxy, { spares: 0, timeoutSeconds: 60 });
    const sidecar = new ThinkingBoxSidecar(thinkingBoxHome(config).python);
    const leases = controlPool(config, 4);
    const runner = thinkingBoxRunner(config, runtime, { proxy, sessions, sidecar, leases });
    try {
      const [all, oracles] = await Promise.all([
        verifyThinkingBoxTasks(runner, [{ manifestFile: manifest, tasks: tasks.filter((t) => mutated.has(t.id)) }]),
        inBatches(
          tasks.filter((t) => !mutated.has(t.id)),
          2,
          async (t) => (await runner.run(request(t, undefined))).reward,
        ),
      ]);
      assert.deepEqual(all.problems, []);
      assert.equal(all.oracle.passed, all.oracle.total);
      assert.equal(all.noop.failed, all.noop.total);
      assert.equal(all.mutations.byKind.drop_last_write?.failed, mutated.size);
      assert.equal(all.mutations.byKind.alter_argument?.failed, all.mutations.byKind.alter_argument?.total);
      assert.deepEqual(
        oracles,
        oracles.map(() => 1),
        'the oracle passes on every other task',
      );
    } finally {
      await sessions.close();
      await sidecar.close();
      await leases.end();
    }
  },
);

test(
  'a graded episode keeps its record: the test that graded it, the tool calls, the state hashes',
  { skip },
  async () => {
    const task = tasks[0]!;
    const req = request(task, undefined);
    const outcome = await runtime.runner.run(req);
    assert.equal(outcome.reward, 1);
    const record = (await new EpisodeStore(runtime.control).load(req.episodeId))!;
    assert.equal(record.toolCalls.length, task.golden.length);
    assert.equal(record.grade.assertions[0]!.description, `ThinkingBox test ${task.thinkingbox!.uid}`);
    assert.ok(record.grade.stateMatches);
    assert.equal(record.grade.expectedStateSha256, record.grade.actualStateSha256);
    // the session is destroyed and the episode's row gone
    const rows = await runtime.control.query('SELECT 1 FROM thinkingbox_episodes WHERE episode_id = $1', [
      req.episodeId,
    ]);
    assert.equal(rows.rowCount, 0);
  },
);

test(
  "concurrent episodes of one task do not see each other's writes, more of them than control connections",
  { skip },
  async () => {
    // three oracles and three no-ops at once: a no-op sharing an oracle's session would pass; and six episodes storing
    // their records at once, past the control pool's 4 connections, each holding its lease meanwhile
    const task = tasks.find((t) => t.golden.length >= 3)!;
    const outcomes = await Promise.all(
      [undefined, [], undefined, [], undefined, []].map((calls) => runtime.runner.run(request(task, calls))),
    );
    assert.deepEqual(
      outcomes.map((o) => o.reward),
      [1, 0, 1, 0, 1, 0],
    );
  },
);

test('a session that cannot be created is infrastructure, never a 0', { skip }, async () => {
  const task = tasks[0]!;
  await withThinkingBoxPart(
    () => ({ serverConfig: { no_such_server: {} } }),
    async () => {
      await assert.rejects(alteredRunner.run(request(task, undefined)), (err: Error) => {
        assert.ok(err instanceof InfrastructureError, `${err.name}: ${err.message}`);
        assert.match(err.message, /no_such_server/);
        return true;
      });
    },
  );
});

test('a test body that raises anything but an AssertionError is a malformed task, named', { skip }, async () => {
  const task = tasks[0]!;
  const name = task.thinkingbox!.testName;
  await withThinkingBoxPart(
    () => ({
      testCode: `def ${name}(x, judge):\n    assert undefined_name_in_the_body == 1\n\n__tb_test_fn = ${name}\n`,
    }),
    async () => {
      await assert.rejects(alteredRunner.run(request(task, undefined)), (err: Error) => {
        assert.ok(err instanceof MalformedThinkingBoxTask, `${err.name}: ${err.message}`);
        assert.ok(err.message.includes(task.thinkingbox!.file) && err.message.includes(name), err.message);
        assert.match(err.message, /NameError/);
        return true;
      });
    },
  );
});

test(
  "a tool's direct_response override: formatted by ThinkingBox's code, forwarded as an agent message, graded",
  { skip },
  async () => {
    const task = tasks.find((t) => t.golden[0]?.tool === 'get_customer_profile' && t.golden.length > 1)!;
    const second = task.golden[1]!.tool;
    const name = task.thinkingbox!.testName;
    await withThinkingBoxPart(
      (tb) => ({
        toolOverrides: [
          ...tb.toolOverrides,
          { name: 'get_customer_profile', direct_response: 'Your profile is on file.', is_end_turn: false },
          { name: second, direct_response: 'Found {no_such_key_in_the_answer}.', is_end_turn: false },
        ],
        testCode: `def ${name}(x, judge):\n    assert x.tool_direct_responses == ["Your profile is on file."], x.tool_direct_responses\n    assert x.tool_calls[1].tool_response.content == "Error in function execution"\n\n__tb_test_fn = ${name}\n`,
      }),
      async () => {
        const req = request(task, undefined);
        const outcome = await alteredRunner.run(req);
        assert.equal(outcome.reward, 1, 'the grader saw the direct response and the error text');
        const record = (await new EpisodeStore(runtime.control).load(req.episodeId))!;
        const turns = record.transcript.turns;
        const direct = turns.findIndex((t) => t.role === 'assistant' && t.direct);
        // after the first call's answer, before the agent's next turn (which then calls the second tool)
        assert.deepEqual(
          turns
            .slice(direct - 2, direct + 2)
            .map((t) => (t.role === 'assistant' ? (t.toolCalls[0]?.tool ?? t.content) : t.role)),
          ['get_customer_profile', 'tool', 'Your profile is on file.', second],
        );
        assert.equal(turns.filter((t) => t.role === 'assistant' && t.direct).length, 1);
        assert.equal(turns[direct + 2]!.content, 'Error in function execution');
      },
    );
  },
);

test(
  'a judge that cannot be reached is infrastructure; without a judge its question is unjudged',
  { skip },
  async () => {
    const task = tasks[0]!;
    const name = task.thinkingbox!.testName;
    await withThinkingBoxPart(
      (tb) => ({
        testCode: `${tb.testCode}\n\ndef judged(x, judge):\n    ${name}(x, judge)\n    assert judge.text_yesno(x.response, "Does the message confirm the request was handled?")\n\n__tb_test_fn = judged\n`,
      }),
      async () => {
        const judge = {
          endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'judge', timeoutMs: 5000, maxRetries: 0 },
        };
        await assert.rejects(alteredRunner.run(request(task, undefined, { judge })), (err: Error) => {
          assert.ok(err instanceof InfrastructureError, `${err.name}: ${err.message}`);
          assert.match(err.message, /judge_unreachable/);
          return true;
        });
        const req = request(task, undefined);
        const outcome = await alteredRunner.run(req);
        assert.equal(outcome.reward, 1, 'the state part holds; the question does not count');
        const record = (await new EpisodeStore(runtime.control).load(req.episodeId))!;
        assert.equal(record.unjudgedRubrics, 1);
        assert.equal(record.grade.rubrics[0]!.status, 'needs_judge');
      },
    );
  },
);

test(
  "a tool call whose server stalls past the proxy's limit is answered once as unfinished, never sent again",
  { skip },
  async () => {
    const task = tasks.find((t) => t.domain === 'sandbox_external_retail')!;
    const proxy = new ThinkingBoxProxyClient(thinkingbox.proxyAddress(config));
    const sessionId = uniqueName('tb-stall');
    const module = 'mcp_sandbox_external_retail';
    const before = serverPids(module);
    await proxy.createSession({
      sessionId,
      serverConfig: task.thinkingbox!.serverConfig,
      availableTools: task.thinkingbox!.availableTools,
      timeoutSeconds: 2,
    });
    const ours = serverPids(module).filter((pid) => !before.includes(pid));
    assert.equal(ours.length, 1, `the session's own server process: ${ours.join(', ')}`);
    let toolCalls = 0;
    const counting: typeof fetch = async (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) toolCalls++;
      return fetch(input, init);
    };
    const tools = await ProxySessionTools.connect(thinkingbox.proxyAddress(config), sessionId, {
      callTimeoutMs: 30_000,
      fetch: counting,
    });
    process.kill(ours[0]!, 'SIGSTOP'); // the server stalls: the proxy gives up on the call after its 2 s
    try {
      const call = task.golden[0]!;
      const answer = await tools.callTool(call.tool, call.arguments);
      assert.equal(answer.isError, true, answer.text);
      assert.equal(toolCalls, 1, 'sent once: it may have run');
    } finally {
      process.kill(ours[0]!, 'SIGCONT');
      await tools.close();
      await proxy.destroySession(sessionId);
    }
    assert.equal(await proxy.hasSession(sessionId), false);
  },
);

/** The pids of the business server processes running `module` (one per session). */
function serverPids(module: string): number[] {
  const out = spawnSync('pgrep', ['-f', module], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter(Boolean).map(Number);
}

test(
  'a retried attempt reattaches to its session while the proxy has it, and resumes from its checkpoint',
  { skip },
  async () => {
    const task = tasks.find((t) => t.golden.length >= 4)!;
    const req = request(task, undefined);
    // attempt 1 fails as infrastructure after its third turn is sampled, before that turn's call is sent
    await failAfterTurn(req, 1, 3);
    const outcome = await runtime.runner.run(req, { attempt: 2 });
    assert.equal(outcome.reward, 1);
    const record = (await new EpisodeStore(runtime.control).load(req.episodeId))!;
    assert.deepEqual(record.resumedAt, [2], 'resumed after the two checkpointed turns');
    assert.equal(record.toolCalls.length, task.golden.length, 'every call ran once');
    // an older attempt, once a newer one has taken the episode over, is refused
    const stale = request(task, undefined);
    await failAfterTurn(stale, 3, 1);
    await assert.rejects(runtime.runner.run(stale, { attempt: 2 }), /older than attempt 3/);
    await runtime.runner.run(stale, { attempt: 4 });
  },
);

/** Run `attempt` of the episode and fail it as infrastructure once its turn `turn` is sampled. */
async function failAfterTurn(req: EpisodeRequest, attempt: number, turn: number): Promise<void> {
  const lost = (t: number) => {
    if (t === turn) throw new InfrastructureError('the worker lost its connection (test)', 'test');
  };
  await assert.rejects(runtime.runner.run(req, { attempt, onTurn: lost }), InfrastructureError);
}

test(
  "parity: the conversation finalstate sends is the one ThinkingBox's agent session would send",
  { skip },
  async () => {
    // one recorded episode, rendered by finalstate's chat-API renderer and by ThinkingBox's own AgentSession/AOAISession
    // (its request body captured by the sidecar), system messages, turns and tools compared
    const task = tasks.find((t) => t.domain === 'sandbox_external_retail' && t.golden.length >= 3)!;
    const req = request(task, undefined);
    await runtime.runner.run(req);
    const recorded = (await new EpisodeStore(runtime.control).load(req.episodeId))!.transcript;
    // with a tool's direct response forwarded after the first answer, as a direct_response override would
    const firstAnswer = recorded.turns.findIndex((t) => t.role === 'tool');
    const transcript = {
      ...recorded,
      turns: recorded.turns.toSpliced(firstAnswer + 1, 0, {
        role: 'assistant' as const,
        content: 'Your profile is on file.',
        toolCalls: [],
        direct: true as const,
      }),
    };
    const builtin = new Set(task.thinkingbox!.builtinTools.map((t) => t.name));
    const sidecar = new ThinkingBoxSidecar(thinkingBoxHome(config).python);
    let theirs;
    try {
      theirs = await sidecar.request(
        {
          op: 'agent_request',
          systemMessages: task.thinkingbox!.systemMessages,
          messages: thinkingBoxMessages(transcript),
          tools: [
            ...task.thinkingbox!.builtinTools,
            ...transcript.tools
              .filter((t) => !builtin.has(t.name))
              .map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
          ],
        },
        AgentRequestAnswer,
      );
    } finally {
      await sidecar.close();
    }
    const ours = chatMessages(transcript);
    assert.deepEqual(comparable(ours as unknown as Record<string, unknown>[]), comparable(theirs.messages));
    assert.equal(ours.filter((m) => m.role === 'system').length, task.thinkingbox!.systemMessages.length);
    const tools = (list: { function: { name: string; description?: string; parameters?: unknown } }[]) =>
      list.map((t) => ({ name: t.function.name, description: t.function.description ?? '' }));
    assert.deepEqual(tools(transcript.tools.map(asChatTool) as unknown as typeof theirs.tools), tools(theirs.tools));
  },
);

const AgentRequestAnswer = z.looseObject({
  ok: z.literal(true),
  messages: z.array(z.record(z.string(), z.unknown())),
  tools: z.array(z.looseObject({ function: z.looseObject({ name: z.string(), description: z.string().optional() }) })),
});

/** Chat messages with what may differ in form only made alike: call ids by their order, arguments parsed, no content as ''. */
function comparable(messages: readonly Record<string, unknown>[]) {
  const ids = new Map<string, number>();
  const idOf = (id: unknown) => {
    if (!ids.has(String(id))) ids.set(String(id), ids.size);
    return ids.get(String(id));
  };
  return messages.map((m) => ({
    role: m.role,
    content: m.content ?? '',
    ...(Array.isArray(m.tool_calls) && m.tool_calls.length > 0
      ? {
          calls: (m.tool_calls as { id: string; function: { name: string; arguments: string } }[]).map((c) => ({
            id: idOf(c.id),
            name: c.function.name,
            arguments: JSON.parse(c.function.arguments) as unknown,
          })),
        }
      : {}),
    ...(m.tool_call_id !== undefined ? { answers: idOf(m.tool_call_id) } : {}),
  }));
}

test('the janitor destroys the session of an episode that died, and forgets it', { skip }, async () => {
  const task = tasks[0]!;
  const proxy = new ThinkingBoxProxyClient(thinkingbox.proxyAddress(config));
  const rows = new ThinkingBoxEpisodeRows(runtime.control);
  const episodeId = uniqueName('tb-dead');
  const sessionId = uniqueName('tb-dead-session');
  await proxy.createSession({
    sessionId,
    serverConfig: task.thinkingbox!.serverConfig,
    availableTools: task.thinkingbox!.availableTools,
    timeoutSeconds: 60,
  });
  await rows.insert({ episodeId, sessionId, proxyUrl: proxy.url, attempt: 1, lease: 'dead', initResult: {} });
  // its worker died an hour ago: nothing has touched its row since
  await runtime.control.query(
    "UPDATE thinkingbox_episodes SET updated_at = now() - interval '1 hour' WHERE episode_id = $1",
    [episodeId],
  );
  const cleaned = await collectDeadSessions(rows, proxy, 30);
  assert.ok(cleaned.includes(episodeId), cleaned.join(', '));
  assert.equal(await proxy.hasSession(sessionId), false);
  const left = await runtime.control.query('SELECT 1 FROM thinkingbox_episodes WHERE episode_id = $1', [episodeId]);
  assert.equal(left.rowCount, 0);
});

test("parity: finalstate's verdict on a trace is ThinkingBox's own runner's verdict on it", { skip }, async () => {
  // the oracle's calls and the oracle without its last write, each played by finalstate's episode runner and by
  // ThinkingBox's own run_agent_user_loop + TestScript on the same proxy (sidecar op run_oracle_thinkingbox)
  const picked = ['sandbox_external_retail', 'sandbox_consulting'].map((d) => tasks.find((t) => t.domain === d)!);
  const sidecar = new ThinkingBoxSidecar(thinkingBoxHome(config).python);
  try {
    for (const task of picked) {
      const writes = task.golden.map((c, i) => ({ c, i })).filter(({ c }) => isWriteCall(c));
      const dropped = task.golden.filter((_, i) => i !== writes.at(-1)!.i);
      for (const calls of [task.golden, dropped]) {
        const ours = await runtime.runner.run(request(task, calls));
        const theirs = await sidecar.request(
          {
            op: 'run_oracle_thinkingbox',
            proxyUrl: thinkingbox.proxyAddress(config).url,
            task: { query: task.query, userContext: task.userContext, golden: calls, thinkingbox: task.thinkingbox! },
          },
          OracleRunResponse,
        );
        assert.equal(ours.reward, theirs.result ? 1 : 0, `${task.id}, ${calls.length} calls`);
      }
    }
  } finally {
    await sidecar.close();
  }
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../workers/config.js';
import { fromRoot } from '../../core/paths.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { qwen3Renderer } from '../../runtime/interpreter/index.js';
import { runAgentLoop } from '../../runtime/episode/loop.js';
import { McpToolSession } from '../../runtime/episode/mcp-tool-session.js';
import { ScriptedUserSimulator } from '../../runtime/clients/scripted-user.js';
import { connectEpisodeTools } from '../../environment/episode-tools.js';
import { checkFinalState, finalStateHolds } from '../../environment/grader.js';
import { scoreEpisode } from '../../runtime/episode/scoring.js';
import { ExpectedStates } from '../../environment/expected-state.js';
import { EpisodeLimits, EpisodeRecord, EpisodeRequest } from '../../schemas/episode.js';
import type { Task } from '../../schemas/task.js';
import { uniqueName } from '../helpers/index.js';
import { ScriptedTextPolicy } from './scripted-policies.js';

// Full episodes on the real retail pack: a fresh PostgreSQL backend per episode, its tools over a real MCP session,
// the agent loop with the deterministic user, grading, and the record in the control database.
const config = loadConfig();
const taskSet = fromRoot('tasks', 'retail', 'retail-train-mini.manifest.json');
let runtime: EpisodeRuntime;
const episodeIds: string[] = [];

before(async () => {
  runtime = await createEpisodeRuntime(config);
});
after(async () => {
  if (episodeIds.length) await runtime.control.query('DELETE FROM episodes WHERE episode_id = ANY($1)', [episodeIds]);
  await runtime.close();
});

function taskOf(type: string): Task {
  return runtime.tasks.taskSet(taskSet).tasks.find((t) => t.tags[0] === type)!;
}

function request(task: Task, policy: EpisodeRequest['policy'] = { kind: 'oracle' }): EpisodeRequest {
  const episodeId = uniqueName(`test-episode-${task.tags[0]}`);
  episodeIds.push(episodeId);
  return EpisodeRequest.parse({ episodeId, taskId: task.id, taskSet, trial: 0, policy, seed: 1 });
}

/** Runs the loop with a ScriptedTextPolicy on a fresh backend for the task, grades it, and tears the backend down. */
async function playTexts(task: Task, texts: string[], limits: Partial<EpisodeLimits> = {}) {
  const backend = runtime.backend;
  const episode = await backend.open(uniqueName(`texts-${task.tags[0]}`), task);
  try {
    const wiring = await connectEpisodeTools(backend, episode);
    const tools = new McpToolSession(wiring.client, () => wiring.close());
    let loop;
    try {
      loop = await runAgentLoop({
        system: 'test',
        policy: new ScriptedTextPolicy(texts),
        tools,
        user: new ScriptedUserSimulator(task),
        limits: EpisodeLimits.parse(limits),
      });
    } finally {
      await tools.close();
    }
    const check = await checkFinalState(backend, new ExpectedStates(backend), episode);
    const score = await scoreEpisode({
      check,
      rubrics: task.rubrics,
      conversation: loop.conversation,
      finishReason: loop.finishReason,
    });
    return { loop, tools, check, score };
  } finally {
    await backend.teardown(episode);
  }
}

/** The record of a played episode, as the runner records one (reward 0, resumed after agent turn 1). */
function recordOf(
  task: Task,
  { loop, tools, score }: Awaited<ReturnType<typeof playTexts>>,
  episodeId: string,
  at: { campaignId: string; step: number; trial: number },
): EpisodeRecord {
  const none = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
  return EpisodeRecord.parse({
    outcome: {
      episodeId,
      taskId: task.id,
      domain: task.domain,
      split: task.split,
      trial: at.trial,
      tags: task.tags,
      reward: 0,
      error: null,
      usage: { agent: none, user: none, judge: none },
      costUsd: 0,
      campaignId: at.campaignId,
      step: at.step,
      finishReason: loop.finishReason,
      trainable: false,
    },
    group: 1,
    interpretedBy: 'finalstate',
    turns: loop.agentTurns,
    transcript: loop.conversation,
    trajectoryDrift: null,
    toolCalls: tools.calls,
    resumedAt: [1],
    grade: score.grade,
    rubricVerdicts: score.rubricVerdicts,
    unjudgedRubrics: score.unjudgedRubrics,
    unpricedModels: [],
    timings: { ...loop.timings, gradingMs: 3, totalMs: 40 },
  });
}

const call = (tool: string, args: Record<string, unknown>) =>
  `<tool_call>\n${JSON.stringify({ name: tool, arguments: args })}\n</tool_call>`;

test('an oracle episode on a real backend through real MCP earns reward 1, and its record is stored', async () => {
  const task = taskOf('cancel_order');
  const req = request(task);
  let afterRecord: { storeMs: number; teardownMs: number } | undefined;
  const outcome = await runtime.runner.run(req, { onStored: (t) => void (afterRecord = t) });
  assert.equal(outcome.reward, 1);
  assert.equal(outcome.error, null);
  assert.equal(outcome.trainable, false, 'the oracle samples no tokens');
  assert.ok(
    afterRecord && afterRecord.storeMs > 0 && afterRecord.teardownMs >= 0,
    'the runner reports storing and teardown times after the record',
  );
  assert.ok(['user_done', 'agent_done'].includes(outcome.finishReason), outcome.finishReason);
  const record = await new EpisodeStore(runtime.control).load(req.episodeId);
  assert.ok(record, 'the record is in the control database');
  EpisodeRecord.parse(record);
  assert.deepEqual(
    record.toolCalls.map((c) => ({ tool: c.tool, arguments: c.arguments })),
    task.golden,
  );
  assert.deepEqual(record.grade.diff, []);
  assert.equal(record.transcript.turns[0]?.role, 'user');
  assert.equal(record.transcript.turns[0]?.role === 'user' && record.transcript.turns[0].content, task.query);
  const { provisionMs, mcpSessionMs, trajectoryMs, agentMs, toolsMs, userMs, gradingMs, totalMs } = record.timings;
  assert.ok(
    provisionMs! > 0 && mcpSessionMs! > 0 && trajectoryMs! >= 0,
    `the phases of the episode are timed: ${JSON.stringify(record.timings)}`,
  );
  assert.ok(
    totalMs >= provisionMs! + mcpSessionMs! + trajectoryMs! + agentMs + toolsMs + userMs + gradingMs,
    'the phases fit in the total',
  );
});

test('the oracle passes one task of every mini task type of both domains', async () => {
  for (const domain of ['retail', 'travel']) {
    const set = runtime.tasks.taskSet(fromRoot('tasks', domain, `${domain}-train-mini.manifest.json`));
    const byType = new Map(set.tasks.map((t) => [t.tags[0], t]));
    for (const task of byType.values()) {
      const outcome = await runtime.runner.run({ ...request(task), taskSet: set.manifestFile });
      assert.equal(outcome.reward, 1, `${task.id} (${outcome.finishReason})`);
    }
  }
});

test('a policy that makes the wrong write gets reward 0 with the diff that shows it', async () => {
  const task = taskOf('address_change');
  const order = (task.golden[0]!.arguments as { order_id: string }).order_id;
  const { loop, check } = await playTexts(task, [
    call('get_order', { order_id: order }),
    call('update_shipping_address', { order_id: order, address: '1 Wrong Way, Nowhere, ZZ 00000' }),
    'I have updated the address.',
  ]);
  assert.equal(loop.finishReason, 'user_done');
  assert.equal(finalStateHolds(check), false);
  assert.deepEqual(
    check.diff.map((d) => ({
      kind: d.kind,
      table: d.table,
      column: d.kind === 'changed_value' ? d.column : undefined,
      actual: d.kind === 'changed_value' ? d.actual : undefined,
    })),
    [{ kind: 'changed_value', table: 'orders', column: 'shipping_address', actual: '1 wrong way, nowhere, zz 00000' }], // canonicalised: trim + casefold
  );
});

test('malformed model output is fed back as a tool error, and the corrected call still earns the reward', async () => {
  const task = taskOf('cancel_order');
  const order = (task.golden[0]!.arguments as { order_id: string }).order_id;
  const { loop, tools, check } = await playTexts(task, [
    '<tool_call>\n{"name": "cancel_order", "arguments": {"order_id": \n</tool_call>',
    call('frobnicate', {}),
    call('get_order', { order_id: order }),
    call('cancel_order', { order_id: order, reason: 'customer_request' }),
    'Your order is cancelled.',
  ]);
  assert.deepEqual(
    loop.agentTurns.map((t) => t.parseFailures),
    [1, 1, 0, 0, 0],
  );
  const feedback = loop.conversation.turns.filter((t) => t.role === 'tool').slice(0, 2);
  for (const turn of feedback) assert.match(turn.content, /^Error: your last message could not be executed/);
  assert.deepEqual(
    tools.calls.map((c) => c.tool),
    ['get_order', 'cancel_order'],
    'no malformed call reached the tools',
  );
  assert.equal(finalStateHolds(check), true);
});

test('limits end the conversation as a task outcome with its finish reason', async () => {
  const task = taskOf('cancel_order');
  const { loop } = await playTexts(task, [call('get_order', { order_id: 'ORD-1' })], { maxAgentTurns: 3 });
  assert.equal(loop.finishReason, 'max_turns');
  assert.equal(loop.agentTurns.length, 3);
});

test('finalstate run --policy oracle prints the episode, and --json its outcome and record', async () => {
  const { runCli } = await import('../helpers/index.js');
  const task = taskOf('address_change');
  const text = runCli(['run', '--task', task.id]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /\[agent calls\] update_shipping_address/);
  assert.match(text.stdout, /final state: matches the expected state\nreward: 1$/m);
  const json = runCli(['run', '--task', task.id, '--json']);
  const parsed = JSON.parse(json.stdout) as { outcome: { reward: number; episodeId: string }; record: unknown };
  episodeIds.push(parsed.outcome.episodeId);
  assert.equal(parsed.outcome.reward, 1);
  EpisodeRecord.parse(parsed.record);
  await runtime.control.query('DELETE FROM episodes WHERE episode_id LIKE $1', [`run-${task.id}-%`]);
  const missing = runCli(['run', '--task', 'no.such.task']);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no task no\.such\.task/);
});

test('a stored transcript renders byte-identically to the live prompt (tool schemas keep their key order)', async () => {
  const task = taskOf('cancel_order');
  const req = request(task);
  await runtime.runner.run(req);
  const record = (await new EpisodeStore(runtime.control).load(req.episodeId))!;
  const episode = await runtime.backend.open(uniqueName('live-tools'), task);
  try {
    const wiring = await connectEpisodeTools(runtime.backend, episode);
    const tools = new McpToolSession(wiring.client, () => wiring.close());
    const live = {
      system: record.transcript.system,
      tools: await tools.listTools(),
      turns: record.transcript.turns.slice(0, 1),
    };
    await tools.close();
    const stored = { ...record.transcript, turns: record.transcript.turns.slice(0, 1) };
    assert.equal(qwen3Renderer.renderConversation(stored), qwen3Renderer.renderConversation(live));
  } finally {
    await runtime.backend.teardown(episode);
  }
});

test('finalstate episode show prints a failed episode: its calls with arguments, what the agent saw, the diff by table, row and column, and where it resumed', async () => {
  const { runCli } = await import('../helpers/index.js');
  const { renderedDom } = await import('../helpers/chromium.js');
  const task = taskOf('address_change');
  const order = (task.golden[0]!.arguments as { order_id: string }).order_id;
  // A real episode (loop, MCP tools, grading on PostgreSQL), recorded as the runner records one.
  const played = await playTexts(task, [
    call('get_order', { order_id: order }),
    call('update_shipping_address', { order_id: order, address: '1 Wrong Way, Nowhere, ZZ 00000' }),
    'I have updated the address.',
  ]);
  const episodeId = uniqueName('audit-show');
  episodeIds.push(episodeId);
  const record = recordOf(task, played, episodeId, { campaignId: 'audit-campaign', step: 2, trial: 3 });
  await new EpisodeStore(runtime.control).save(record);

  const shown = runCli(['episode', 'show', episodeId]);
  assert.equal(shown.status, 0, shown.stderr);
  const out = shown.stdout;
  assert.match(
    out,
    new RegExp(
      `^  ${task.id.replace(/\./g, '\\.')} t3 · reward 0 · changed orders\\.shipping_address · 2 calls · user_done$`,
      'm',
    ),
    'the summary line (computed for a record stored without one)',
  );
  assert.match(
    out,
    new RegExp(`→ update_shipping_address\\(\\{"order_id":"${order}","address":"1 Wrong Way, Nowhere, ZZ 00000"\\}\\)`),
    'the call with its arguments',
  );
  assert.match(out, /\[tool result \(what the agent saw\)\]/);
  assert.match(
    out,
    new RegExp(
      `^orders +order_id="${order}" +shipping_address +"[^"]+" +"1 wrong way, nowhere, zz 00000" +changed_value$`,
      'm',
    ),
    'the diff row: table, key, column, expected, actual',
  );
  assert.match(out, /^  retries +resumed from the turn checkpoint after agent turn 1$/m);
  assert.match(out, /^  policy versions +test$/m);
  assert.match(out, /\[agent turn 2 · policy version test · model scripted-text · resumed here after a retry\]/);
  assert.match(out, /^  FAIL  /m, 'a failed assertion');

  const json = runCli(['episode', 'show', episodeId, '--json']);
  assert.deepEqual(EpisodeRecord.parse(JSON.parse(json.stdout)), record);

  const listed = runCli([
    'episode',
    'list',
    '--campaign',
    'audit-campaign',
    '--step',
    '2',
    '--task',
    task.id,
    '--trial',
    '3',
    '--reward',
    '0',
    '--finish-reason',
    'user_done',
    '--json',
  ]);
  assert.equal(listed.status, 0, listed.stderr);
  assert.deepEqual(
    (JSON.parse(listed.stdout) as Array<{ episodeId: string; group: number }>).map((e) => [e.episodeId, e.group]),
    [[episodeId, 1]],
  );
  const passedOnly = runCli(['episode', 'list', '--campaign', 'audit-campaign', '--reward', '1', '--json']);
  assert.deepEqual(JSON.parse(passedOnly.stdout), []);
  const bad = runCli(['episode', 'list', '--finish-reason', 'bored']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--finish-reason must be one of agent_done, user_done/);
  const missing = runCli(['episode', 'show', 'no/such/episode']);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no episode "no\/such\/episode" in the control database/);

  // The same episode as a page, as Chromium renders it.
  const os = await import('node:os');
  const path = await import('node:path');
  const page = path.join(os.tmpdir(), `${uniqueName('episode-page')}.html`);
  assert.equal(runCli(['episode', 'show', episodeId, '--html', page]).status, 0);
  const dom = renderedDom(page);
  assert.match(dom, /<td>changed_value<\/td><td>orders<\/td><td>order_id="[^"]+"<\/td><td>shipping_address<\/td>/);
  assert.match(dom, /<span class="call">→ update_shipping_address\(/);
  assert.match(dom, /class="summary fail"/);
});

test('a NUL character the model sampled is stored as U+FFFD, and listings and the demo criterion read the record', async () => {
  const task = taskOf('cancel_order');
  // Byte-level tokenizers can sample a 0x00 byte; JSON writes it \u0000, which PostgreSQL's json operators refuse
  // (test/runtime/hostile-records.test.ts: every hostile string through every reader).
  const played = await playTexts(task, [
    '<tool_call>\n{"name": "cancel_order", "arguments": {"order_id": "ORD-1\u0000"}}\n</tool_call>',
    'Done.',
  ]);
  const campaignId = uniqueName('nul-campaign');
  const episodeId = `${campaignId}/probe/${task.id}/t0`;
  episodeIds.push(episodeId);
  const store = new EpisodeStore(runtime.control);
  await store.save(recordOf(task, played, episodeId, { campaignId, step: 0, trial: 0 }));

  const loaded = await store.load(episodeId);
  assert.ok(
    loaded!.transcript.turns.some((t) => t.role === 'assistant' && t.raw?.includes('ORD-1\ufffd')),
    'the stored record shows the NUL as U+FFFD',
  );
  const [listed] = await store.list({ campaignId });
  assert.equal(listed!.episodeId, episodeId);
  assert.equal(listed!.reward, 0);
  const { judgeCampaignUnfinished } = await import('../../cli/demo/unfinished.js');
  const verdict = await judgeCampaignUnfinished(runtime.control, campaignId, 0, {
    lastSteps: 1,
    maxRisePoints: 5,
    maxCostRatio: 1.3,
  });
  assert.equal(verdict.base.episodes, 1);
});

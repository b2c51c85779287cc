import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { readTaskSets } from '../../environment/task-set.js';
import { loadConfig } from '../../workers/config.js';
import { fromRoot } from '../../core/paths.js';
import {
  generatedTrainingSets,
  oracleDemonstrations,
  renderDemonstration,
} from '../../runtime/demonstrations/demonstrations.js';
import { EpisodeStore } from '../../runtime/episode/episode-store.js';
import { type EpisodeRuntime } from '../../runtime/episode/runtime.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { qwen3Renderer } from '../../runtime/interpreter/index.js';
import { SftDemonstration } from '../../schemas/training.js';
import { EpisodeRequest } from '../../schemas/episode.js';
import { Trajectory } from '../../schemas/trajectory.js';
import { retail } from '../../domains/retail/index.js';
import { travel } from '../../domains/travel/index.js';
import { domains } from '../../domains/index.js';
import { freePort, runCli, startProcess, uniqueName } from '../helpers/index.js';

// Demonstrations for the tiny base model come from real oracle episodes (fresh PostgreSQL backend, MCP tools, the
// agent loop) and are the interpreter's rendering of the stored transcripts.
const config = loadConfig();
let runtime: EpisodeRuntime;
const prefixes: string[] = [];
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-demos-'));

before(async () => {
  runtime = await createEpisodeRuntime(config);
});
after(async () => {
  for (const prefix of prefixes)
    await runtime.control.query('DELETE FROM episodes WHERE episode_id LIKE $1', [`${prefix}-%`]);
  await runtime.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

const ASSISTANT_OPEN = '<|im_start|>assistant\n';

test('a planned rule-breaking path is demonstrated when the tools accept it and the grader rejects it; otherwise the golden calls are', async () => {
  const set = readTaskSets(fromRoot('tasks')).find((s) => s.manifest.name === 'retail-train-mini')!;
  const cancel = set.tasks.find((t) => t.tags[0] === 'cancel_order')!;
  const refused = set.tasks.find((t) => t.tags[0] === 'cancel_refused')!;
  const orderOf = (t: typeof cancel) => (t.golden[0]!.arguments as { order_id: string }).order_id;
  const plan = new Map([
    // Reads the order and says it is done: every call runs, and the order is not cancelled.
    [cancel.id, [cancel.golden[0]!]],
    // Cancels a delivered order: the tool refuses, so this path is not plausible and the golden calls demonstrate.
    [
      refused.id,
      [
        refused.golden[0]!,
        { tool: 'cancel_order', arguments: { order_id: orderOf(refused), reason: 'customer_request' } },
      ],
    ],
  ]);
  const only = { ...set, tasks: [cancel, refused] };
  const prefix = uniqueName('demo-rule-breaking');
  prefixes.push(prefix);
  const run = await oracleDemonstrations(runtime, qwen3Renderer, [only], {
    concurrency: 1,
    episodePrefix: prefix,
    ruleBreaking: plan,
  });
  assert.equal(run.demonstrations.length, 2);
  const [broken, golden] = run.demonstrations;
  assert.deepEqual([broken!.taskId, broken!.ruleBreaking], [cancel.id, true]);
  assert.deepEqual([golden!.taskId, golden!.ruleBreaking], [refused.id, false]);
  assert.deepEqual(
    run.rejectedRuleBreaking.map((r) => r.taskId),
    [refused.id],
  );
  assert.match(run.rejectedRuleBreaking[0]!.problem, /cancel_order answered an error/);
  const store = new EpisodeStore(runtime.control);
  const record = (await store.load(broken!.episodeId))!;
  assert.equal(record.outcome.reward, 0);
  assert.deepEqual(
    record.toolCalls.map((c) => c.tool),
    [cancel.golden[0]!.tool],
  );
  assert.equal(broken!.demonstration.text, qwen3Renderer.renderConversation(record.transcript));
});

test('demonstrations are the interpreter rendering of stored oracle transcripts, trained on train-split mini tasks only', async () => {
  const sets = readTaskSets(fromRoot('tasks')); // every split and profile: the module must pick train/mini itself
  assert.ok(
    sets.some((s) => s.tasks.some((t) => t.split === 'eval')) &&
      sets.some((s) => s.tasks.some((t) => t.profile === 'full')),
  );
  const prefix = uniqueName('demo-test');
  prefixes.push(prefix);
  const run = await oracleDemonstrations(runtime, qwen3Renderer, sets, {
    maxTasks: 5,
    concurrency: 2,
    episodePrefix: prefix,
  });
  assert.equal(run.failedTaskIds.length, 0);
  assert.equal(run.demonstrations.length, 5);
  assert.ok(run.demonstrations.every((d) => !d.ruleBreaking));
  const byId = new Map(sets.flatMap((s) => s.tasks.map((t) => [t.id, t] as const)));
  // tasks/ is read with its sub-folders: every built-in domain's training split.
  assert.deepEqual(
    new Set(run.demonstrations.map((d) => byId.get(d.taskId)!.domain)),
    new Set(['consulting', 'insurance', 'neobank', 'retail', 'travel']),
  );

  const store = new EpisodeStore(runtime.control);
  for (const { taskId, episodeId, demonstration } of run.demonstrations) {
    const task = byId.get(taskId)!;
    assert.deepEqual([task.split, task.profile], ['train', 'mini'], taskId);
    const record = (await store.load(episodeId))!;
    assert.equal(record.outcome.reward, 1);
    assert.equal(demonstration.text, qwen3Renderer.renderConversation(record.transcript));
    assert.ok(SftDemonstration.safeParse(demonstration).success);

    // One span per assistant turn: it starts right after the turn's opening and ends with its <|im_end|>.
    const assistantTurns = record.transcript.turns.filter((t) => t.role === 'assistant');
    const openings = [...demonstration.text.matchAll(/<\|im_start\|>assistant\n/g)].map(
      (m) => m.index + ASSISTANT_OPEN.length,
    );
    assert.equal(demonstration.assistantSpans.length, assistantTurns.length);
    assert.deepEqual(
      demonstration.assistantSpans.map(([start]) => start),
      openings,
    );
    demonstration.assistantSpans.forEach(([start, end], i) => {
      const body = demonstration.text.slice(start, end);
      assert.ok(body.endsWith('<|im_end|>') && !body.slice(0, -'<|im_end|>'.length).includes('<|im'), body);
      assert.equal(demonstration.text[end], '\n');
      const parsed = qwen3Renderer.parseOutput(body, record.transcript.tools);
      assert.deepEqual(parsed.turn.toolCalls, assistantTurns[i]!.toolCalls);
    });
    // The mini profile shows the short tool descriptions, never the full pack text.
    const domain = domains.find((d) => d.name === task.domain)!;
    for (const tool of record.transcript.tools) {
      const defined = domain.tools.find((t) => t.name === tool.name)!;
      assert.equal(tool.description, defined.miniDescription ?? defined.description);
    }
  }
});

test('extra demonstration tasks come from the generators, training split only, with ids across the split range', () => {
  const sets = generatedTrainingSets([retail, travel], path.join(workDir, 'generated'), [13, 26], 8);
  assert.equal(sets.length, 4);
  for (const set of sets) for (const task of set.tasks) assert.deepEqual([task.split, task.profile], ['train', 'mini']);
  const leadingDigits = new Set(sets.flatMap((s) => s.tasks.map((t) => /(?:ORD|BKG)-(\d)/.exec(t.query)?.[1])));
  // Each set walks the range by a large stride: 32 tasks already show every leading digit.
  assert.deepEqual([...leadingDigits].sort(), ['1', '2', '3', '4', '5', '6', '7', '8']);
});

test('renderDemonstration refuses a renderer that is not prefix-stable', () => {
  const broken = {
    ...qwen3Renderer,
    renderConversation: (c: Parameters<typeof qwen3Renderer.renderConversation>[0]) =>
      `${c.turns.length}${qwen3Renderer.renderConversation(c)}`,
  };
  const conversation = {
    system: 's',
    tools: [],
    turns: [
      { role: 'user' as const, content: 'hi' },
      { role: 'assistant' as const, content: 'hello', toolCalls: [] },
    ],
  };
  assert.throws(() => renderDemonstration(broken, conversation), /not prefix-stable/);
  const ok = renderDemonstration(qwen3Renderer, conversation);
  assert.equal(ok.text.slice(...ok.assistantSpans[0]!), 'hello<|im_end|>');
});

test('finalstate model build-base with a tiny step count writes a checkpoint that the policy server serves', async () => {
  const cacheDir = path.join(workDir, 'cache');
  const res = runCli(['model', 'build-base', '--max-demos', '4', '--steps', '3', '--cache-dir', cacheDir, '--json']);
  assert.equal(res.status, 0, res.stderr);
  const result = JSON.parse(res.stdout) as {
    checkpointDir: string;
    cached: boolean;
    demonstrations: { count: number; episodePrefix: string | null };
    report: { paramCount: number; sftSteps: number; finalLoss: number };
    lossCurve: { step: number; loss: number }[];
  };
  if (result.demonstrations.episodePrefix) prefixes.push(result.demonstrations.episodePrefix);
  assert.equal(result.demonstrations.count, 4);
  assert.equal(result.report.sftSteps, 3);
  assert.ok(
    result.report.paramCount > 500_000 && result.report.paramCount < 2_000_000,
    String(result.report.paramCount),
  );
  assert.ok(Number.isFinite(result.report.finalLoss) && result.lossCurve.length === 3);
  for (const file of ['model.safetensors', 'tokenizer.json', 'config.json'])
    assert.ok(fs.existsSync(path.join(result.checkpointDir, file)), file);

  const again = runCli(['model', 'build-base', '--max-demos', '4', '--steps', '3', '--cache-dir', cacheDir, '--json']);
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual(
    [JSON.parse(again.stdout).cached, JSON.parse(again.stdout).checkpointDir],
    [true, result.checkpointDir],
  );

  const port = await freePort();
  const python = fromRoot(config.python.venv, 'bin', 'python');
  const server = startProcess(
    python,
    ['-m', 'finalstate.policy_server', '--model', result.checkpointDir, '--port', String(port), '--device', 'cpu'],
    /policy server ready/,
    { PYTHONPATH: fromRoot('python') },
  );
  try {
    await server.started;
    const models = (await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json()) as { data: { id: string }[] };
    const prompt = '<|im_start|>user\nPlease cancel my order ORD-100001.<|im_end|>\n<|im_start|>assistant\n';
    const reply = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: models.data[0]!.id,
        prompt,
        max_tokens: 8,
        temperature: 1,
        seed: 1,
        logprobs: 1,
        return_token_ids: true,
      }),
    });
    assert.equal(reply.status, 200);
    const body = (await reply.json()) as { choices: { text: string; token_ids?: number[] }[] };
    assert.equal(body.choices.length, 1);
    assert.equal(typeof body.choices[0]!.text, 'string');

    // A full episode through the runtime against this served model: the stored trajectory's token ids, loss mask and
    // logprobs line up, and its text is exactly the rendered conversation (no drift).
    const taskSet = fromRoot('tasks', 'retail', 'retail-eval-mini.manifest.json');
    const task = runtime.tasks.taskSet(taskSet).tasks[0]!;
    const episodeId = uniqueName('served-episode');
    const outcome = await runtime.runner.run(
      EpisodeRequest.parse({
        episodeId,
        taskId: task.id,
        taskSet,
        trial: 0,
        seed: 3,
        policy: {
          kind: 'served',
          client: {
            baseUrl: `http://127.0.0.1:${port}`,
            model: models.data[0]!.id,
            sampling: { maxTokens: 24, temperature: 1 },
          },
        },
        limits: { maxAgentTurns: 3 },
      }),
    );
    try {
      assert.ok(outcome.trajectoryUri, 'a served episode stores its trajectory');
      const trajectory = Trajectory.parse(JSON.parse(fs.readFileSync(new URL(outcome.trajectoryUri), 'utf8')));
      assert.equal(trajectory.drift, null);
      assert.equal(outcome.trainable, true);
      assert.equal(trajectory.tokenIds.length, trajectory.lossMask.length);
      assert.equal(trajectory.tokenIds.length, trajectory.rolloutLogprobs.length);
      const record = (await new EpisodeStore(runtime.control).load(episodeId))!;
      assert.equal(trajectory.lossMask.filter((m) => m === 1).length, record.outcome.usage.agent.outputTokens);
      trajectory.lossMask.forEach((m, i) => {
        if (m === 0) assert.equal(trajectory.rolloutLogprobs[i], 0);
        else assert.ok(trajectory.rolloutLogprobs[i]! <= 0 && Number.isFinite(trajectory.rolloutLogprobs[i]!));
      });
      const detok = (await (
        await fetch(`http://127.0.0.1:${port}/detokenize`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ tokens: trajectory.tokenIds }),
        })
      ).json()) as { prompt: string };
      assert.ok(
        qwen3Renderer.renderConversation(record.transcript).startsWith(detok.prompt),
        'the tokens spell the rendered conversation',
      );
    } finally {
      await runtime.control.query('DELETE FROM episodes WHERE episode_id = $1', [episodeId]);
    }
  } finally {
    await server.stop();
  }
});

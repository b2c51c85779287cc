import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import pg from 'pg';
import { fromRoot } from '../../core/paths.js';
import { connectionConfig } from '../../environment/connection.js';
import { writeTaskSet } from '../../environment/task-set.js';
import { loadPreset, SERVED_MODEL_NAME } from '../../cli/demo/preset.js';
import { buildBaseModel } from '../../cli/model/base-model.js';
import { startVllm, vllmPython, type VllmServer } from '../../infra/vllm-server.js';
import { policyFor } from '../../runtime/episode/episode-runner.js';
import type { EpisodeRuntime } from '../../runtime/episode/runtime.js';
import type { FleetEvent } from '../../runtime/fleet/router.js';
import { CampaignConfig } from '../../schemas/campaign.js';
import type { PolicyServerRef } from '../../schemas/clients.js';
import type { EpisodeRecord } from '../../schemas/episode.js';
import type { GrpoStepResult } from '../../schemas/pipeline.js';
import { LocalArtifactStore } from '../../storage/artifacts.js';
import { sharedWorkflowBundle } from '../../testkit/pipeline/bundle.js';
import { firstTaskOfType } from '../../testkit/pipeline/oracle-episodes.js';
import { SlowedPolicy } from '../../testkit/pipeline/slowed-policy.js';
import { startStandInGpuWorker } from '../../testkit/pipeline/stand-in-gpu-worker.js';
import { loadConfig } from '../../workers/config.js';
import { startControlWorker } from '../../workers/control.js';
import { createEpisodeRuntime } from '../../workers/episode-runtime.js';
import { startEpisodeWorker } from '../../workers/episodes.js';
import { connectClient } from '../../workers/temporal-client.js';
import type { RunningWorker } from '../../workers/temporal-worker.js';
import { grpoStep } from '../../workflows/grpo-step.js';
import { grpoStepInput } from '../../workflows/inputs.js';
import { freePort, startProcess, uniqueName } from '../helpers/index.js';

// The rollout fleet on real processes: three of the project's policy servers and two vLLM CPU servers, all serving the
// smoke preset's tiny base model (built once and cached, as policy-stall.test.ts builds it), behind GRPO steps run by a
// real episode worker (the real episode runner: PostgreSQL episode databases, MCP tools, the scripted user, the router
// of runtime/fleet/) and the stand-in gpu worker, whose checkpoints are copies of the same model so that every server
// loads them. Step 1: the episodes spread over the five servers; one vLLM is SIGKILLed the moment one of its episodes,
// its first turn done and checkpointed, is about to sample the second; its episodes finish on the others (retried
// attempts, resumed from their turn checkpoints, never scored). It is restarted on the base model (weight version
// "default"). Step 2 draws the same tasks: the step's reconcileFleet publishes version 1 to the restarted server, which
// serves episodes again. None is mis-scored: with greedy sampling and the same weights, a task's episodes all earn the
// same reward wherever and whenever they ran, so within each group of both steps (the killed step's moved episodes
// included) and between the steps the rewards agree; and the two tasks earn different rewards, one 0 and one 1, so a
// lost episode scored 0 would show (a run where every reward is 0, or every one 1, proves nothing and fails).

const config = loadConfig();
const MODEL = SERVED_MODEL_NAME;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-rollout-fleet-'));
const tokenFile = path.join(dir, 'admin.token');
const queues = {
  control: uniqueName('fleet-control'),
  episodes: uniqueName('fleet-episodes'),
  gpu: uniqueName('fleet-gpu'),
};
const campaignId = uniqueName('fleet');

let modelDir: string;
const vllms: VllmServer[] = [];
const ours: Array<ReturnType<typeof startProcess>> = [];
const refs: PolicyServerRef[] = [];
const workers: Array<Pick<RunningWorker, 'stop'>> = [];
let runtime: EpisodeRuntime;
let client: Client;
let control: pg.Pool;
let victim: { url: string; port: number };
/** Starts the victim again on its port, on the base model, as a supervisor would: weight version "default". */
let restartVictim: () => Promise<VllmServer>;
let pool: string[];
let taskSet: string;
const events: FleetEvent[] = [];
/** The server of each attempt, in order, by episode id. */
const attempts = new Map<string, string[]>();
/** What the policy does before each turn: the test's hold on the episodes. */
let beforeTurn: (url: string, turn: number) => Promise<void> = async () => undefined;

before(async () => {
  fs.writeFileSync(tokenFile, 'fleet-test-admin-token-0123456789\n', { mode: 0o600 });
  const { preset } = loadPreset('smoke');
  modelDir = (await buildBaseModel(config, { ...preset.baseModel, cacheDir: config.dataPath, log: () => undefined }))
    .checkpointDir;
  const python = fromRoot(config.python.venv, 'bin', 'python');
  // A restarted server is told no version: it reports vLLM's "default", as after any restart.
  const startOneVllm = async (port?: number, restarted = false) => {
    const at = port ?? (await freePort());
    return startVllm(vllmPython(config), {
      modelDir,
      servedModelName: MODEL,
      port: at,
      logFile: path.join(dir, `vllm-${at}.log`),
      ...(restarted ? {} : { weightVersion: '0' }),
    });
  };
  restartVictim = () => startOneVllm(victim.port, true);
  const startOurs = async () => {
    const port = await freePort();
    const server = startProcess(
      python,
      [
        '-m',
        'finalstate.policy_server',
        ...['--model', modelDir, '--port', String(port), '--device', 'cpu', '--threads', '1'],
        ...['--served-model-name', MODEL, '--admin-token-file', tokenFile],
      ],
      /policy server ready/,
      { PYTHONPATH: fromRoot('python') },
      300_000,
    );
    ours.push(server);
    await server.started;
    return { url: `http://127.0.0.1:${port}`, kind: 'finalstate' as const, tokenFile };
  };
  const [project, started] = await Promise.all([
    Promise.all([startOurs(), startOurs(), startOurs()]),
    Promise.all([startOneVllm(), startOneVllm()]),
  ]);
  vllms.push(...started);
  refs.push(...project, ...started.map((s) => ({ url: s.url, kind: 'vllm' as const })));
  victim = { url: vllms[1]!.url, port: vllms[1]!.port };

  runtime = await createEpisodeRuntime(config, {
    backend: { sparesPerTemplate: 0 },
    probeIntervalMs: 500,
    policyFor: (request, task, server) => {
      const url = server!.server.url;
      attempts.set(request.episodeId, [...(attempts.get(request.episodeId) ?? []), url]);
      return new SlowedPolicy(policyFor(request, task, server), (turn) => beforeTurn(url, turn));
    },
  });
  runtime.router.subscribe((e) => events.push(e));
  const taskSetFile = fromRoot('tasks', 'retail', 'retail-train-mini.manifest.json');
  const tasks = ['cancel_refused', 'cancel_order'].map((type) =>
    runtime.tasks.get(taskSetFile, firstTaskOfType(taskSetFile, type)),
  );
  pool = tasks.map((t) => t.id);
  taskSet = writeTaskSet(dir, 'fleet-test', '1', tasks).manifestFile;
  for (const t of tasks) await runtime.backend.template(runtime.backend.registry.get(t.domain));
  const artifacts = new LocalArtifactStore(path.join(dir, 'artifacts'));
  workers.push(
    await startControlWorker(config, {
      taskQueue: queues.control,
      workflowBundle: await sharedWorkflowBundle(),
      deps: { artifacts },
    }),
    await startEpisodeWorker(config, {
      runner: runtime.runner,
      taskQueue: queues.episodes,
      concurrency: 10,
      shutdownGraceTime: '5 seconds',
    }),
    await startStandInGpuWorker(config, queues.gpu, modelDir),
  );
  client = await connectClient(config);
  control = new pg.Pool({ ...connectionConfig(config), max: 2 });
});

after(async () => {
  for (const w of workers.reverse()) await w.stop().catch(() => undefined);
  for (const s of ours) await s.stop();
  for (const s of vllms) await s.stop();
  if (control) {
    await control.query('DELETE FROM episodes WHERE campaign_id = $1', [campaignId]);
    await control.query('DELETE FROM campaign_result_rows WHERE campaign_id = $1', [campaignId]);
    await control.end();
  }
  await client?.connection.close();
  await runtime?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const campaign = () =>
  CampaignConfig.parse({
    campaignId,
    policy: {
      kind: 'served',
      // Greedy: an episode samples the same turns on every server (fp32 on both kinds), so a task's reward does not
      // depend on where its episodes ran, and step 2 (the same weights, published as version 1) repeats step 1.
      client: {
        baseUrl: refs[0]!.url,
        model: MODEL,
        family: 'qwen3',
        timeoutMs: 60_000,
        sampling: { maxTokens: 48, temperature: 0 },
      },
    },
    policyServers: refs,
    fleet: { minServers: 1, reconcileEvery: '5s' },
    tasks: { train: { taskSet, split: 'train' }, eval: { taskSet, split: 'train' } },
    limits: { maxAgentTurns: 3, maxUserTurns: 2, maxContextTokens: 2048, maxTotalTokens: 4096 },
    steps: 2,
    groupsPerStep: 2,
    rolloutsPerGroup: 5,
    maxReplacementRounds: 0,
    keepZeroVarianceGroups: true,
    update: { baseModel: modelDir },
    episodes: { maxAttempts: 6, initialInterval: '200ms', maximumInterval: '2s', heartbeatTimeout: '60s' },
    taskQueues: queues,
    seed: 3,
  });

async function runStep(step: number, state: { policyVersion?: string; checkpointUri?: string }) {
  const config = { ...campaign(), taskQueues: queues };
  const input = grpoStepInput(config, { pool, sampler: { epoch: 0, cursor: 0 }, ...state }, step);
  const workflowId = `${campaignId}/step-${step}`;
  const result: GrpoStepResult = await client.workflow.execute(grpoStep, {
    taskQueue: queues.control,
    workflowId,
    args: [input],
  });
  const { rows } = await control.query<{ record: EpisodeRecord }>(
    'SELECT record FROM episodes WHERE episode_id LIKE $1 ORDER BY episode_id',
    [`${workflowId}/%`],
  );
  return { result, records: rows.map((r) => r.record), workflowId };
}

/** The results of a workflow's completed activities of one type, in order. */
async function activityResults<T>(workflowId: string, type: string): Promise<T[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<number, string>();
  const results: T[] = [];
  for (const event of history.events ?? []) {
    const s = event.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name) scheduled.set(Number(event.eventId), s.activityType.name);
    const done = event.activityTaskCompletedEventAttributes;
    if (done && scheduled.get(Number(done.scheduledEventId)) === type)
      results.push(defaultPayloadConverter.fromPayload<T>(done.result!.payloads![0]!));
  }
  return results;
}

/** Episodes (or attempts) per server, by a readable name: ours-0..2, vllm-0, and vllm-1, the victim. */
const countBy = (urls: string[]) => {
  const name = (url: string) => {
    const index = refs.findIndex((r) => r.url === url);
    return index < 3 ? `ours-${index}` : `vllm-${index - 3}${url === victim.url ? ' (killed)' : ''}`;
  };
  const counts = Object.fromEntries(refs.map((r) => [name(r.url), 0]));
  for (const url of urls) counts[name(url)] = (counts[name(url)] ?? 0) + 1;
  return counts;
};

test('episodes spread over the fleet; a server SIGKILLed mid-step: its episodes finish elsewhere, none mis-scored; restarted, it rejoins on the version the fleet publishes', async (t) => {
  // Step 1: the victim is killed the moment one of its episodes is about to sample its second turn.
  let killed: Promise<void> | undefined;
  beforeTurn = (url, turn) => {
    if (url !== victim.url || turn < 2) return Promise.resolve();
    killed ??= (async () => {
      process.kill(-vllms[1]!.pid, 'SIGKILL');
      await vllms[1]!.exited;
    })();
    return killed;
  };
  const step1 = await runStep(1, {});
  const firstServers = [...attempts.entries()].filter(([id]) => id.startsWith(step1.workflowId));
  t.diagnostic(`step 1 attempts per server: ${JSON.stringify(countBy(firstServers.flatMap(([, s]) => s)))}`);
  t.diagnostic(
    `step 1 episodes per final server: ${JSON.stringify(countBy(step1.records.map((r) => r.servers.at(-1)!)))}`,
  );
  assert.ok(killed, 'the victim served an episode, and was killed');
  assert.equal(step1.records.length, 10, 'every episode has its record');
  assert.equal(step1.result.episodes.infraFailed, 0, 'no episode lost: every failed attempt was retried');
  for (const ref of refs)
    assert.ok(
      firstServers.some(([, s]) => s[0] === ref.url),
      `${ref.url} served an episode`,
    );
  const moved = firstServers.filter(([, s]) => s[0] === victim.url);
  assert.ok(moved.length >= 1);
  for (const [id, servers] of moved) {
    assert.notEqual(servers.at(-1), victim.url, `${id} finished elsewhere`);
    assert.ok(!servers.slice(1).includes(victim.url), `${id} was never sent back to the dead server`);
  }
  for (const [id, servers] of firstServers)
    if (servers[0] !== victim.url) assert.equal(new Set(servers).size, 1, `${id} stayed on its one server`);
  for (const record of step1.records)
    assert.deepEqual(record.servers.slice(-1), [attempts.get(record.outcome.episodeId)!.at(-1)], 'the record names it');
  const resumed = step1.records.filter((r) => r.servers.length === 2);
  assert.ok(resumed.length >= 1, 'the episode whose second turn was cut off resumed elsewhere');
  for (const r of resumed) {
    assert.equal(r.servers[0], victim.url);
    assert.ok(r.resumedAt.length >= 1 && r.resumedAt[0]! >= 1, 'from its turn checkpoint, its first turn kept');
  }
  assert.ok(events.some((e) => e.kind === 'out' && e.url === victim.url));
  const [published] = await activityResults<{ ejected: Array<{ url: string; reason: string }> }>(
    step1.workflowId,
    'publishPolicy',
  );
  assert.deepEqual(
    published!.ejected.map((e) => e.url),
    [victim.url],
    'the publish ejected the dead server, not the step',
  );

  // Restarted like a supervisor would: on the base model, reporting weight version "default".
  const back = new Promise<void>((resolve) =>
    runtime.router.subscribe((e) => e.kind === 'in' && e.url === victim.url && resolve()),
  );
  vllms[1] = await restartVictim();
  await back;
  const weightVersion = async () =>
    ((await (await fetch(`${victim.url}/weight_info`)).json()) as { weight_version: string }).weight_version;
  assert.equal(await weightVersion(), 'default');

  // Step 2 (version 1): every episode waits to sample until the restarted server serves version 1. Nobody but the
  // step's own reconcileFleet publishes to it.
  let republished: Promise<void> | undefined;
  beforeTurn = () =>
    (republished ??= (async () => {
      while ((await weightVersion()) !== '1') await new Promise((r) => setTimeout(r, 200));
    })());
  const step2 = await runStep(2, { policyVersion: '1', checkpointUri: step1.result.checkpointUri });
  t.diagnostic(`step 2 episodes per server: ${JSON.stringify(countBy(step2.records.map((r) => r.servers.at(-1)!)))}`);
  const reconciled = await activityResults<{ servers: Array<{ url: string; reported: string; action: string }> }>(
    step2.workflowId,
    'reconcileFleet',
  );
  assert.deepEqual(
    reconciled[0]!.servers.find((s) => s.url === victim.url),
    { url: victim.url, reported: 'default', action: 'republished', detail: 'now serves version 1' },
  );
  const onVictim = step2.records.filter((r) => r.servers.includes(victim.url));
  assert.ok(onVictim.length >= 1, 'the restarted server serves episodes again');
  for (const r of step2.records)
    assert.ok(
      r.turns.every((turn) => turn.policyVersion === '1'),
      'on version 1',
    );
  assert.equal(step2.result.episodes.infraFailed, 0);
  t.diagnostic(
    `rewards by group: step 1 ${JSON.stringify(step1.result.rewards)}, step 2 ${JSON.stringify(step2.result.rewards)}`,
  );
  // One reward per task: every episode of a group earned its group's, in the step with the kill and in the one after.
  const perTask = (rewards: number[][]) => rewards.map((group) => [...new Set(group)]);
  for (const [step, rewards] of [
    [1, step1.result.rewards],
    [2, step2.result.rewards],
  ] as const)
    for (const [g, group] of perTask(rewards).entries())
      assert.equal(group.length, 1, `step ${step}, group ${g}: its episodes, the same greedy run, earned ${group}`);
  assert.deepEqual(
    perTask(step2.result.rewards),
    perTask(step1.result.rewards),
    "each task's reward after the restart equals its reward in the step with the kill",
  );
  assert.deepEqual(
    perTask(step1.result.rewards).flat().sort(),
    [0, 1],
    'the two tasks earn 0 and 1: a check that would also pass were every episode lost and scored 0 proves nothing',
  );
});

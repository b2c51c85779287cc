import fs from 'node:fs';
import { writeTaskSet as writeEnvironmentTaskSet } from '../../environment/task-set.js';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { LocalArtifactStore } from '../../storage/artifacts.js';
import { loadConfig } from '../../workers/config.js';
import { type LoadedConfig } from '../../schemas/config.js';
import { connectionConfig } from '../../environment/connection.js';
import { connectClient } from '../../workers/temporal-client.js';
import { CampaignConfig, type CampaignConfigInput } from '../../schemas/campaign.js';
import type { TaskInfo } from '../../schemas/pipeline.js';
import { startControlWorker, type ControlWorkerOptions } from '../../workers/control.js';
import type { RunningWorker } from '../../workers/temporal-worker.js';
import { campaign, initialState } from '../../workflows/campaign/index.js';
import type { CampaignConfigWithQueues } from '../../workflows/inputs.js';
import { startEpisodeWorker } from '../../workers/episodes.js';
import { uniqueName } from '../names.js';
import { sharedWorkflowBundle } from './bundle.js';
import { startFakePolicyServer } from './fake-policy-server.js';
import { SeededRandomEpisodeRunner, type SeededRandomRunnerOptions } from './seeded-random-runner.js';
import { startStandInGpuWorker } from './stand-in-gpu-worker.js';

// Activity failures of simulated outages are expected here; keep worker logs to errors.
process.env.FINALSTATE_LOG_LEVEL ??= 'ERROR';

export type TestTask = TaskInfo & { successRate: number; trainedSuccessRate?: number; referenceSuccessRate?: number };

/** Write a task-set JSONL file (valid Task lines) for the given tasks. */
/** A real task set (JSONL + manifest, written by the environment layer) of placeholder tasks the stand-in runner scores. */
export function writeTaskSet(dir: string, tasks: readonly TestTask[]): string {
  const inputs = tasks.map((t) => ({
    id: t.taskId,
    domain: t.domain,
    split: t.split,
    profile: 'mini' as const,
    tags: t.tags,
    query: `do ${t.taskId}`,
    userContext: '',
    now: '2026-01-01T00:00:00Z',
    golden: [],
  }));
  return writeEnvironmentTaskSet(dir, 'pipeline-test', '1', inputs).file;
}

export const task = (
  taskId: string,
  successRate: number,
  split: 'train' | 'eval' = 'train',
  domain = 'retail',
): TestTask => ({ taskId, domain, split, tags: [], successRate });

/**
 * Everything a pipeline test runs on: the real Temporal dev server and PostgreSQL, a control worker (shared workflow
 * bundle), one episode worker with the seeded random stand-in runner, the stand-in gpu worker and the fake policy
 * server, all on unique task queues; a scratch artifact directory. `close` stops them and deletes the rows written.
 */
export interface PipelineOptions {
  /** A real gpu worker on the pipeline's gpu queue in place of the stand-in (then `gpu` is undefined). */
  startGpuWorker?: (config: LoadedConfig, taskQueue: string) => Promise<{ stop(): Promise<void> }>;
  /**
   * A model (or LoRA adapter) directory the stand-in gpu worker copies into each checkpoint, for real rollout servers
   * to load; a function: the directory for that update.
   */
  checkpointWeights?: Parameters<typeof startStandInGpuWorker>[2];
  /** The control worker's activities as registered, from the real ones (workers/control.ts). */
  wrapControlActivities?: ControlWorkerOptions['wrapActivities'];
  /** Each turn records the version the fake policy server serves at that moment (asynchronous steps). */
  turnsFollowServedVersion?: boolean;
}

export async function startPipeline(
  tasks: readonly TestTask[],
  runnerOptions: Partial<SeededRandomRunnerOptions> = {},
  episodeConcurrency = 8,
  options: PipelineOptions = {},
) {
  const config = loadConfig();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'finalstate-pipeline-'));
  const artifacts = new LocalArtifactStore(path.join(dir, 'artifacts'));
  const taskSet = writeTaskSet(dir, tasks);
  const queues = { control: uniqueName('pl-control'), episodes: uniqueName('pl-episodes'), gpu: uniqueName('pl-gpu') };
  const policyServer = await startFakePolicyServer();
  const runner = new SeededRandomEpisodeRunner({
    tasks: new Map(tasks.map((t) => [t.taskId, t])),
    artifacts,
    ...(options.turnsFollowServedVersion ? { servedVersion: () => String(policyServer.version()) } : {}),
    ...runnerOptions,
  });
  const workflowBundle = await sharedWorkflowBundle();
  const workers: Array<Pick<RunningWorker, 'stop'>> = [];
  workers.push(
    await startControlWorker(config, {
      taskQueue: queues.control,
      workflowBundle,
      deps: { artifacts },
      ...(options.wrapControlActivities ? { wrapActivities: options.wrapControlActivities } : {}),
    }),
  );
  workers.push(
    await startEpisodeWorker(config, {
      runner,
      taskQueue: queues.episodes,
      concurrency: episodeConcurrency,
      shutdownGraceTime: '5 seconds',
    }),
  );
  const gpu = options.startGpuWorker
    ? undefined
    : await startStandInGpuWorker(config, queues.gpu, options.checkpointWeights);
  const gpuWorker = gpu ?? (await options.startGpuWorker!(config, queues.gpu));
  workers.push(gpuWorker);
  const client: Client = await connectClient(config);
  const pool = new pg.Pool({ ...connectionConfig(config), max: 2 });
  const campaignIds: string[] = [];

  /** A campaign config on this pipeline's task set and queues; `overrides` replace top-level keys. */
  const campaignConfig = (overrides: Partial<CampaignConfigInput> = {}): CampaignConfigWithQueues => {
    const campaignId = overrides.campaignId ?? uniqueName('camp');
    campaignIds.push(campaignId);
    const parsed = CampaignConfig.parse({
      campaignId,
      policy: { kind: 'served', client: { baseUrl: policyServer.url, model: 'stand-in' } },
      tasks: { train: { taskSet, split: 'train' }, eval: { taskSet, split: 'eval' } },
      probing: { n: 4, nMax: 8, window: 8 },
      steps: 2,
      groupsPerStep: 2,
      rolloutsPerGroup: 4,
      update: { baseModel: '/nonexistent/base-model' },
      evaluation: { everySteps: 5, k: 2, window: 8 },
      episodes: { maxAttempts: 3, initialInterval: '50ms', maximumInterval: '200ms', heartbeatTimeout: '30s' },
      taskQueues: queues,
      ...overrides,
    });
    return { ...parsed, taskQueues: parsed.taskQueues ?? queues };
  };

  /** Starts the campaign workflow of `config` on this pipeline's control queue, under its campaign id. */
  const startCampaign = (config: CampaignConfigWithQueues) =>
    client.workflow.start(campaign, { taskQueue: queues.control, workflowId: config.campaignId, args: [{ config }] });

  /**
   * Starts the campaign of `config` at its training phase on the frozen `pool`, as a run continued from one that
   * selected it starts: no preflight, probe or base evaluation first.
   */
  const startAtTraining = (config: CampaignConfigWithQueues, pool: string[]) =>
    client.workflow.start(campaign, {
      taskQueue: queues.control,
      workflowId: config.campaignId,
      args: [{ config, state: { ...initialState(config), phase: 'train', pool } }],
    });

  return {
    config,
    client,
    startCampaign,
    startAtTraining,
    pool,
    queues,
    taskSet,
    artifacts,
    runner,
    gpu: gpu!, // undefined with options.startGpuWorker
    policyServer,
    campaignConfig,
    rows: async (resultSet: string) =>
      (
        await pool.query<{ episode_id: string; task_id: string; reward: number; error: string | null }>(
          'SELECT episode_id, task_id, reward, error FROM campaign_result_rows WHERE result_set = $1 ORDER BY episode_id',
          [resultSet],
        )
      ).rows,
    async close() {
      for (const w of workers.reverse()) await w.stop();
      await policyServer.close();
      if (campaignIds.length)
        await pool.query('DELETE FROM campaign_result_rows WHERE campaign_id = ANY($1::text[])', [campaignIds]);
      await pool.end();
      await client.connection.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Pipeline = Awaited<ReturnType<typeof startPipeline>>;

/** The failure a workflow ended with; an Error when it completed instead. */
export async function workflowFailure(handle: WorkflowHandle): Promise<WorkflowFailedError> {
  const outcome = await handle.result().then(
    () => new Error(`workflow ${handle.workflowId} completed; a failure was expected`),
    (err: unknown) => err,
  );
  if (outcome instanceof WorkflowFailedError) return outcome;
  throw outcome instanceof Error ? outcome : new Error(String(outcome));
}

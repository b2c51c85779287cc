import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import type { ChildProgress } from '../schemas/campaign.js';
import type { EvaluationInput, EvaluationResult, TaskInfo } from '../schemas/pipeline.js';
import { progressQuery } from './definitions.js';
import { sweep, type SweepPlanner } from './sweep.js';

const { listTasks, evaluationMetrics } = proxyActivities<ControlActivities>({ startToCloseTimeout: '5 minutes', retry: { maximumAttempts: 5 } });

/** Every task k times, trial by trial (all tasks' trial 0 first), so a partial evaluation covers every task. */
export function fixedTrialsPlanner(tasks: readonly TaskInfo[], k: number): SweepPlanner {
  let index = 0;
  return {
    next() {
      if (index >= tasks.length * k) return undefined;
      const task = tasks[index % tasks.length]!;
      const trial = Math.floor(index / tasks.length);
      index += 1;
      return { task, trial };
    },
    record() {},
  };
}

/** Evaluate a policy on every task of a split, k trials each; rows stored, metrics from stats/metrics.ts. */
export async function evaluation(input: EvaluationInput): Promise<EvaluationResult> {
  const progress: ChildProgress = { kind: 'evaluation', planned: 0, done: 0, inFlight: 0, infraFailed: 0 };
  setHandler(progressQuery, () => progress);
  const tasks = await listTasks(input.source);
  const result = await sweep({
    campaignId: input.campaignId,
    resultSet: input.resultSet,
    taskSet: input.source.taskSet,
    step: input.step,
    window: input.window,
    settings: input.settings,
    planner: fixedTrialsPlanner(tasks, input.k),
    progress,
  });
  const { metrics, metricsUri } = await evaluationMetrics({ resultSet: input.resultSet, k: input.k, key: `${input.resultSet}/metrics.json` });
  return { resultSet: input.resultSet, step: input.step, k: input.k, episodes: result.episodes, malformed: result.malformed, metrics, metricsUri, costUsd: result.costUsd };
}

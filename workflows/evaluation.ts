import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import type { ChildProgress } from '../schemas/campaign.js';
import type { EvaluationInput, EvaluationResult, TaskInfo } from '../schemas/pipeline.js';
import { progressQuery } from './definitions.js';
import { taskSearchAttributes } from './search-attributes.js';
import { sweep, type SweepCarry, type SweepPlanner } from './sweep.js';

const { listTasks, evaluationMetrics } = proxyActivities<ControlActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});

/** Every task k times, trial by trial (all tasks' trial 0 first), so a partial evaluation covers every task. */
export function fixedTrialsPlanner(
  tasks: readonly TaskInfo[],
  k: number,
  start = 0,
): SweepPlanner & { position(): number } {
  let index = start;
  // Episodes of earlier runs (continueAsNew) count as settled: they all were before the run renewed its history.
  let settled = start;
  return {
    position: () => index,
    hasMore: () => index < tasks.length * k,
    finished: () => ({ unit: 'episodes', finished: settled, total: tasks.length * k }),
    next() {
      if (index >= tasks.length * k) return undefined;
      const task = tasks[index % tasks.length]!;
      const trial = Math.floor(index / tasks.length);
      index += 1;
      return { task, trial };
    },
    record() {
      settled += 1;
    },
  };
}

/** A continued evaluation run: the task list, how far the trials got, and the sweep's totals. */
export interface EvaluationCarry extends SweepCarry {
  tasks: TaskInfo[];
  position: number;
}

/**
 * Evaluate a policy on every task of a split, k trials each; rows stored, metrics from stats/metrics.ts. A long
 * evaluation renews its history (continueAsNew) every `episodesPerRun` episodes, or when Temporal suggests it.
 */
export async function evaluation(input: EvaluationInput & { carried?: EvaluationCarry }): Promise<EvaluationResult> {
  const { carried, ...rest } = input;
  const progress: ChildProgress = carried?.progress ?? {
    kind: 'evaluation',
    planned: 0,
    done: 0,
    inFlight: 0,
    infraFailed: 0,
  };
  setHandler(progressQuery, () => progress);
  const tasks = carried?.tasks ?? (await listTasks(input.source));
  const attributes = taskSearchAttributes(tasks);
  if (!carried && attributes.length) upsertSearchAttributes(attributes);
  const planner = fixedTrialsPlanner(tasks, input.k, carried?.position ?? 0);
  const result = await sweep({
    carried,
    ...(input.episodesPerRun ? { maxEpisodes: input.episodesPerRun } : {}),
    campaignId: input.campaignId,
    resultSet: input.resultSet,
    taskSet: input.source.taskSet,
    step: input.step,
    window: input.window,
    settings: input.settings,
    planner,
    progress,
  });
  if (result.unfinished) {
    await condition(allHandlersFinished);
    await continueAsNew<typeof evaluation>({
      ...rest,
      carried: {
        tasks,
        position: planner.position(),
        progress: result.progress,
        malformed: result.malformed,
        costUsd: result.costUsd,
      },
    });
  }
  const { metrics, metricsUri } = await evaluationMetrics({
    resultSet: input.resultSet,
    k: input.k,
    key: `${input.resultSet}/metrics.json`,
    ...(input.trainingDomains ? { trainingDomains: input.trainingDomains } : {}),
  });
  return {
    resultSet: input.resultSet,
    step: input.step,
    k: input.k,
    episodes: result.episodes,
    malformed: result.malformed,
    metrics,
    metricsUri,
    costUsd: result.costUsd,
  };
}

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
import type { ProbeInput, ProbeResult, TaskInfo } from '../schemas/pipeline.js';
import { probingDecision } from '../stats/adaptive-probing.js';
import { progressQuery } from './definitions.js';
import { taskSearchAttributes } from './search-attributes.js';
import { sweep, type SweepCarry, type SweepPlanner } from './sweep.js';

const { listTasks } = proxyActivities<ControlActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});

export interface TaskProbe {
  task: TaskInfo;
  launched: number;
  settled: number;
  c: number;
  n: number;
  closed: boolean;
  stoppedEarly: boolean;
}

/**
 * Fixed probing: n episodes per task. Adaptive: the first n episodes of a task run unconditionally, then one more at a
 * time (at most one in flight per task) until the stopping rule of stats/adaptive-probing.ts holds or nMax is reached.
 * Tasks take turns: the task with the fewest launched episodes goes next, so the window spreads across tasks.
 */
export function probePlanner(
  tasks: readonly TaskInfo[],
  input: Pick<ProbeInput, 'n' | 'nMax' | 'adaptive' | 'threshold' | 'edges'>,
  carried?: readonly TaskProbe[],
): SweepPlanner & { probes: TaskProbe[] } {
  const probes: TaskProbe[] = carried
    ? carried.map((p) => ({ ...p }))
    : tasks.map((task) => ({ task, launched: 0, settled: 0, c: 0, n: 0, closed: false, stoppedEarly: false }));
  const byId = new Map(probes.map((p) => [p.task.taskId, p]));
  const cap = input.adaptive ? input.nMax : input.n;
  const mayLaunch = (p: TaskProbe) =>
    !p.closed && p.launched < cap && (p.launched < input.n || p.launched === p.settled);
  return {
    probes,
    next() {
      let best: TaskProbe | undefined;
      for (const p of probes) if (mayLaunch(p) && (!best || p.launched < best.launched)) best = p;
      if (!best) return undefined;
      best.launched += 1;
      return { task: best.task, trial: best.launched - 1 };
    },
    hasMore: () => probes.some(mayLaunch),
    // A task is resolved once nothing more will be launched for it and its episodes have all settled.
    finished: () => ({
      unit: 'tasks',
      finished: probes.filter((p) => !mayLaunch(p) && p.settled === p.launched).length,
      total: probes.length,
    }),
    record(taskId, result) {
      const p = byId.get(taskId)!;
      p.settled += 1;
      if (result === 'malformed') p.closed = true;
      if (result === 'success' || result === 'failure') {
        p.n += 1;
        if (result === 'success') p.c += 1;
      }
      if (input.adaptive && !p.closed && p.settled === p.launched && p.launched >= input.n) {
        const decision = probingDecision(p.c, p.n, {
          edges: input.edges,
          threshold: input.threshold,
          nMax: input.nMax,
        });
        if (decision.stop) {
          p.closed = true;
          p.stoppedEarly = decision.reason === 'confident' && p.launched < input.nMax;
        }
      }
    },
  };
}

/** A continued probe run: the per-task counts and the sweep's totals so far. */
export interface ProbeCarry extends SweepCarry {
  probes: TaskProbe[];
}

/**
 * Probe every candidate task with the base policy; the rows go to the result set whose name is returned. A long probe
 * renews its history (continueAsNew) every `episodesPerRun` episodes, or when Temporal suggests it.
 */
export async function probe(input: ProbeInput & { carried?: ProbeCarry }): Promise<ProbeResult> {
  const { carried, ...rest } = input;
  const progress: ChildProgress = carried?.progress ?? {
    kind: 'probe',
    planned: 0,
    done: 0,
    inFlight: 0,
    infraFailed: 0,
  };
  setHandler(progressQuery, () => progress);
  const tasks = carried ? carried.probes.map((p) => p.task) : await listTasks(input.source);
  const attributes = taskSearchAttributes(tasks);
  if (!carried && attributes.length) upsertSearchAttributes(attributes);
  const planner = probePlanner(tasks, input, carried?.probes);
  const result = await sweep({
    carried,
    ...(input.episodesPerRun ? { maxEpisodes: input.episodesPerRun } : {}),
    campaignId: input.campaignId,
    resultSet: input.resultSet,
    taskSet: input.source.taskSet,
    step: input.step ?? 0,
    window: input.window,
    settings: input.settings,
    planner,
    progress,
  });
  if (result.unfinished) {
    await condition(allHandlersFinished);
    await continueAsNew<typeof probe>({
      ...rest,
      carried: {
        probes: planner.probes,
        progress: result.progress,
        malformed: result.malformed,
        costUsd: result.costUsd,
      },
    });
  }
  return {
    resultSet: input.resultSet,
    tasks: tasks.length,
    episodes: result.episodes,
    stoppedEarly: planner.probes.filter((p) => p.stoppedEarly).length,
    malformed: result.malformed,
    costUsd: result.costUsd,
  };
}

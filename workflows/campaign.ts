import {
  ApplicationFailure,
  ChildWorkflowFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import { FailureType } from '../core/failure-types.js';
import type { CampaignConfig, CampaignState, CampaignStatus, PoolVersion } from '../schemas/campaign.js';
import type { EvaluationResult } from '../schemas/pipeline.js';
import {
  pauseSignal,
  replayStepUpdate,
  resumeSignal,
  setMaxStepsUpdate,
  stateQuery,
  statusQuery,
  stopAfterStepSignal,
} from './definitions.js';
import { evaluation } from './evaluation.js';
import { grpoStep } from './grpo-step.js';
import {
  addChildTotals,
  evaluationInput,
  grpoStepInput,
  preflightInput,
  probeInput,
  referenceProbeInput,
  reprobeInput,
  type CampaignConfigWithQueues,
} from './inputs.js';
import type { TrackingActivities } from './gpu.js';
import { updatePreflight } from './preflight.js';
import { probe } from './probe.js';
import { evaluationScalars, stepScalars } from './tracking.js';
import { CampaignIdKey, SplitKey, StepKey } from './search-attributes.js';

const { freezePool, reprobePool } = proxyActivities<ControlActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5, nonRetryableErrorTypes: [FailureType.userError] },
});

/** The campaign's input: its config (task queues filled in) and, in a continued run, the state it carries. */
export interface CampaignInput {
  config: CampaignConfigWithQueues;
  state?: CampaignState;
}

export interface CampaignResult {
  campaignId: string;
  state: CampaignState;
}

export function initialState(config: CampaignConfig): CampaignState {
  return {
    phase: 'probe',
    step: 0,
    maxSteps: config.steps,
    sampler: { epoch: 0, cursor: 0 },
    episodes: { done: 0, infraFailed: 0 },
    costUsd: 0,
    steps: [],
    evalPoints: [],
    evalResultSets: [],
    lastMetrics: null,
    paused: false,
    stopAfterStep: null,
    failedStep: null,
    replays: 0,
    runs: 1,
  };
}

/** The current pool version in brief: its number, the step it was made after, how many tasks it swapped. */
export function poolVersionOf(history: readonly PoolVersion[]) {
  const last = history[history.length - 1]!;
  return { version: last.version, step: last.step, left: last.left.length, entered: last.entered.length };
}

/** What the status query answers (and what `campaign status` shows for a finished campaign, from its result). */
export function statusOf(campaignId: string, state: CampaignState, currentChild: string | null): CampaignStatus {
  return {
    campaignId,
    phase: state.phase,
    step: state.step,
    maxSteps: state.maxSteps,
    poolSize: state.pool ? state.pool.length : null,
    ...(state.poolHistory?.length ? { poolVersion: poolVersionOf(state.poolHistory) } : {}),
    ...(state.referenceResultSet
      ? {
          solvabilityGate: {
            referenceResultSet: state.referenceResultSet,
            dropped: state.droppedByReference ?? null,
          },
        }
      : {}),
    episodes: state.episodes,
    lastMetrics: state.lastMetrics,
    paused: state.paused,
    stopAfterStep: state.stopAfterStep,
    failedStep: state.failedStep,
    currentChild,
    run: state.runs,
    costUsd: state.costUsd,
  };
}

/**
 * A training campaign: memory preflight -> probe -> select -> evaluate the base policy -> GRPO steps (child workflows
 * "<campaignId>/step-<n>") with an evaluation every E steps and after the last -> done. Pause, resume and stop are
 * signals, status a query, setMaxSteps and replayStep updates. The history is renewed with continueAsNew every N steps
 * (or when Temporal suggests it), carrying the state.
 */
/** A step short of informative groups with none lost to infrastructure: the current policy solves or fails every task it drew. */
function poolExhausted(cause: Error | undefined): boolean {
  if (!(cause instanceof ApplicationFailure) || cause.type !== FailureType.shortOfInformativeGroups) return false;
  const [details] = cause.details as [{ infraGroups?: number }?];
  return details?.infraGroups === 0;
}

export async function campaign(input: CampaignInput): Promise<CampaignResult> {
  const { config } = input;
  const id = config.campaignId;
  const state: CampaignState = input.state ?? initialState(config);
  let currentChild: string | null = null;
  /** The GRPO step whose child is running, if any: it counts as started for stopAfterStep and setMaxSteps. */
  let runningStep: number | null = null;
  const stepsStarted = () => runningStep ?? state.step;
  /** Set once the training loop is over: the final evaluation no longer looks at maxSteps. */
  let finishing = false;
  let replayRequested = false;

  setHandler(pauseSignal, () => void (state.paused = true));
  setHandler(resumeSignal, () => void (state.paused = false));
  setHandler(stopAfterStepSignal, (step?: number) => {
    state.stopAfterStep = Math.max(step ?? 0, stepsStarted());
  });
  setHandler(statusQuery, () => statusOf(id, state, currentChild));
  setHandler(stateQuery, () => state);
  setHandler(
    setMaxStepsUpdate,
    (maxSteps: number) => {
      const previous = state.maxSteps;
      state.maxSteps = maxSteps;
      return previous;
    },
    {
      validator: (maxSteps: number) => {
        const started = stepsStarted();
        if (!Number.isInteger(maxSteps) || maxSteps < 1)
          throw new Error(`setMaxSteps: ${maxSteps} is not a positive integer`);
        if (maxSteps < started)
          throw new Error(`setMaxSteps: ${maxSteps} is below the ${started} steps already started`);
        if (finishing) throw new Error(`setMaxSteps: the campaign has finished training (phase ${state.phase})`);
      },
    },
  );
  setHandler(
    replayStepUpdate,
    async (step: number) => {
      replayRequested = true;
      state.replays += 1;
      return `${id}/step-${step}-replay-${state.replays}`;
    },
    {
      validator: (step: number) => {
        if (!state.failedStep)
          throw new Error(`replayStep: no step has failed (the campaign is in phase ${state.phase})`);
        if (state.failedStep.step !== step)
          throw new Error(`replayStep: step ${state.failedStep.step} failed, not step ${step}`);
      },
    },
  );

  upsertSearchAttributes([
    { key: CampaignIdKey, value: id },
    { key: StepKey, value: state.step },
  ]);

  const childSearchAttributes = (step: number, split: 'train' | 'eval') => [
    { key: CampaignIdKey, value: id },
    { key: StepKey, value: step },
    { key: SplitKey, value: split },
  ];
  /** The child's line in the Temporal UI, and where its episodes are read. */
  /** A task set's last two path segments ("pools/rl-pool"): enough to recognise it in a one-line summary. */
  const shortPath = (p: string) =>
    p
      .replace(/^file:\/\//, '')
      .split('/')
      .filter(Boolean)
      .slice(-2)
      .join('/');
  const childMetadata = (summary: string, step: number) => ({
    staticSummary: summary,
    staticDetails: `Campaign \`${id}\`. Episodes: \`finalstate episode list --campaign ${id} --step ${step}\`; one episode: \`finalstate episode show ID\`.`,
  });
  const runChild = async <T>(workflowId: string, run: () => Promise<T>): Promise<T> => {
    currentChild = workflowId;
    try {
      return await run();
    } finally {
      currentChild = null;
    }
  };
  const tracker = proxyActivities<TrackingActivities>({
    taskQueue: config.taskQueues.gpu,
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 3, initialInterval: '2 seconds' },
  });
  /** Metrics to TensorBoard / W&B (Python, on the gpu worker); a tracker that fails costs a warning, never the campaign. */
  const track = async (step: number, scalars: Record<string, number>) => {
    const tracking = config.tracking;
    if (!tracking || (tracking.tensorboard === false && !tracking.wandb)) return;
    try {
      const to = [
        ...(tracking.tensorboard !== false ? ['TensorBoard'] : []),
        ...(tracking.wandb ? [`W&B (${tracking.wandb.mode})`] : []),
      ].join(' + ');
      await tracker.logMetrics.executeWithOptions(
        { summary: `step ${step}: ${Object.keys(scalars).length} scalars to ${to}` },
        [{ campaignId: id, step, scalars, tracking }],
      );
    } catch (err) {
      log.warn('logMetrics failed; the campaign goes on without these metrics in the trackers', {
        step,
        error: (err as Error).message,
      });
    }
  };
  const waitWhilePaused = () => condition(() => !state.paused || state.stopAfterStep !== null);

  const evaluate = async (step: number) => {
    const workflowId = `${id}/eval-step-${step}`;
    const started = Date.now();
    const result: EvaluationResult = await runChild(workflowId, () =>
      executeChild(evaluation, {
        workflowId,
        typedSearchAttributes: childSearchAttributes(step, config.tasks.eval.split),
        ...childMetadata(
          `evaluate ${step === 0 ? 'the base policy' : `the step-${step} policy`} · ${shortPath(config.tasks.eval.taskSet)} (${config.tasks.eval.split}) × k ${config.evaluation.k}`,
          step,
        ),
        args: [evaluationInput(config, state, step)],
      }),
    );
    addChildTotals(state, result);
    state.evalPoints.push({
      step,
      pass1: result.metrics.pass1,
      interval: [result.metrics.pass1Low, result.metrics.pass1High],
      label: step === 0 ? 'base' : `step ${step}`,
    });
    state.evalResultSets.push({ step, resultSet: result.resultSet });
    state.lastMetrics = {
      step,
      pass1: result.metrics.pass1,
      passAtK: result.metrics.passAtK,
      passedKK: result.metrics.passedKK,
      tasks: result.metrics.tasks,
    };
    await track(step, evaluationScalars(result, (Date.now() - started) / 1000));
  };

  // Refuse an update that will not fit the gpu worker's memory before anything runs (histories recorded before the
  // preflight existed replay without it).
  if (state.phase === 'probe' && patched('update-memory-preflight')) {
    const workflowId = `${id}/preflight`;
    await runChild(workflowId, () =>
      executeChild(updatePreflight, {
        workflowId,
        staticSummary: `memory preflight of the policy update · ${shortPath(config.update.baseModel)}`,
        args: [preflightInput(config)],
      }),
    );
  }
  if (state.phase === 'probe') {
    await waitWhilePaused();
    const workflowId = `${id}/probe`;
    const { n, nMax, adaptive } = config.probing;
    const perTask = adaptive ? `${n} to ${nMax} episodes per task, adaptive` : `${n} episodes per task`;
    const result = await runChild(workflowId, () =>
      executeChild(probe, {
        workflowId,
        typedSearchAttributes: childSearchAttributes(0, config.tasks.train.split),
        ...childMetadata(
          `probe the base policy · ${shortPath(config.tasks.train.taskSet)} (${config.tasks.train.split}) · ${perTask}`,
          0,
        ),
        args: [probeInput(config)],
      }),
    );
    state.probeResultSet = result.resultSet;
    addChildTotals(state, result);
    const reference = referenceProbeInput(config);
    if (reference) {
      const referenceId = `${id}/probe-reference`;
      const referenceResult = await runChild(referenceId, () =>
        executeChild(probe, {
          workflowId: referenceId,
          typedSearchAttributes: childSearchAttributes(0, config.tasks.train.split),
          ...childMetadata(
            `probe the reference policy (solvability gate) · ${shortPath(config.tasks.train.taskSet)} (${config.tasks.train.split}) · ${reference.n} episodes per task`,
            0,
          ),
          args: [reference],
        }),
      );
      state.referenceResultSet = referenceResult.resultSet;
      addChildTotals(state, referenceResult);
    }
    state.phase = 'select';
  }
  if (state.phase === 'select') {
    const frozen = await freezePool({
      campaignId: id,
      probeResultSet: state.probeResultSet!,
      ...(state.referenceResultSet ? { referenceResultSet: state.referenceResultSet } : {}),
      selection: config.selection,
    });
    state.pool = frozen.pool;
    state.poolUri = frozen.poolUri;
    if (state.referenceResultSet) state.droppedByReference = frozen.droppedByReference;
    state.trainingDomains = config.tasks.train.domains ? [...config.tasks.train.domains].sort() : frozen.domains;
    if (config.reprobe)
      state.poolHistory = [
        {
          version: 0,
          step: 0,
          size: frozen.pool.length,
          probeResultSet: state.probeResultSet!,
          uri: frozen.poolUri,
          left: [],
          entered: [],
          unreplaced: 0,
        },
      ];
    state.phase = 'base-eval';
  }
  if (state.phase === 'base-eval') {
    await waitWhilePaused();
    await evaluate(0);
    state.phase = 'train';
  }

  /**
   * Re-probe every candidate with the step-`step` policy (the probe child, fixed n) and swap the pool's tasks that
   * left the kept bins (reprobePool). A changed pool starts a fresh sampler epoch, so every task of the new pool is
   * drawn once before any is drawn twice.
   */
  const reprobe = async (step: number) => {
    const workflowId = `${id}/reprobe-step-${step}`;
    const input = reprobeInput(config, state, step);
    const result = await runChild(workflowId, () =>
      executeChild(probe, {
        workflowId,
        typedSearchAttributes: childSearchAttributes(step, config.tasks.train.split),
        ...childMetadata(
          `re-probe the step-${step} policy · ${shortPath(config.tasks.train.taskSet)} (${config.tasks.train.split}) · ${input.n} episodes per task`,
          step,
        ),
        args: [input],
      }),
    );
    addChildTotals(state, result);
    const swapped = await reprobePool({
      campaignId: id,
      step,
      probeResultSet: result.resultSet,
      pool: state.pool ?? [],
      selection: config.selection,
      ...(state.trainingDomains ? { trainingDomains: state.trainingDomains } : {}),
    });
    const history = state.poolHistory ?? [];
    history.push({
      version: history.length,
      step,
      size: swapped.pool.length,
      probeResultSet: result.resultSet,
      uri: swapped.uri,
      left: swapped.left,
      entered: swapped.entered,
      unreplaced: swapped.unreplaced,
    });
    state.poolHistory = history;
    if (swapped.left.length > 0) {
      state.pool = swapped.pool;
      state.sampler = { epoch: state.sampler.epoch + 1, cursor: 0 };
    }
  };

  const overBudget = () =>
    (config.budgets.maxEpisodes !== undefined && state.episodes.done >= config.budgets.maxEpisodes) ||
    (config.budgets.maxCostUsd !== undefined && state.costUsd >= config.budgets.maxCostUsd);
  const stopRequested = () => state.stopAfterStep !== null && state.step >= state.stopAfterStep;

  while (state.phase === 'train' || state.phase === 'step-failed') {
    if (state.phase === 'step-failed') {
      await condition(() => replayRequested || state.stopAfterStep !== null);
      if (!replayRequested) break;
      state.phase = 'train';
    }
    if (state.step >= state.maxSteps || stopRequested() || overBudget()) break;
    await waitWhilePaused();
    if (stopRequested()) break;
    const step = state.step + 1;
    const workflowId = replayRequested ? `${id}/step-${step}-replay-${state.replays}` : `${id}/step-${step}`;
    replayRequested = false;
    let result;
    runningStep = step;
    try {
      result = await runChild(workflowId, () =>
        executeChild(grpoStep, {
          workflowId,
          typedSearchAttributes: childSearchAttributes(step, config.tasks.train.split),
          ...childMetadata(
            `GRPO step ${step}/${state.maxSteps} · ${config.groupsPerStep} groups × ${config.rolloutsPerGroup} rollouts from a pool of ${state.pool?.length ?? 0} tasks`,
            step,
          ),
          args: [grpoStepInput(config, state, step)],
        }),
      );
    } catch (err) {
      if (!(err instanceof ChildWorkflowFailure)) throw err;
      const cause = err.cause;
      state.failedStep = {
        step,
        message:
          cause instanceof ApplicationFailure
            ? `${cause.type ?? 'Error'}: ${cause.message}`
            : (cause?.message ?? err.message),
      };
      if (config.stopWhenPoolExhausted && poolExhausted(cause)) {
        state.stopAfterStep = state.step;
        break;
      }
      state.phase = 'step-failed';
      continue;
    } finally {
      runningStep = null;
    }
    state.failedStep = null;
    state.step = step;
    state.sampler = result.sampler;
    state.steps.push(result.summary);
    state.policyVersion = result.policyVersion;
    state.checkpointUri = result.checkpointUri;
    addChildTotals(state, result);
    upsertSearchAttributes([{ key: StepKey, value: step }]);
    await track(step, stepScalars(result.summary, result.costUsd));

    const more = step < state.maxSteps && !stopRequested() && !overBudget();
    if (more && step % config.evaluation.everySteps === 0) {
      state.phase = 'eval';
      await evaluate(step);
      state.phase = 'train';
    }
    if (more && config.reprobe && step % config.reprobe.everySteps === 0) {
      state.phase = 'reprobe';
      await reprobe(step);
      state.phase = 'train';
    }
    if (more && (step % config.continueAsNewEverySteps === 0 || workflowInfo().continueAsNewSuggested)) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof campaign>({ config, state: { ...state, runs: state.runs + 1 } });
    }
  }

  finishing = true;
  if (state.step > 0 && !state.evalResultSets.some((e) => e.step === state.step)) {
    state.phase = 'eval';
    await evaluate(state.step);
  }
  state.phase = state.step >= state.maxSteps ? 'done' : 'stopped';
  await condition(allHandlersFinished);
  return { campaignId: id, state };
}

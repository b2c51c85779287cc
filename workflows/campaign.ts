import {
  ApplicationFailure,
  type ActivityInterfaceFor,
  ChildWorkflowFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  type ChildWorkflowHandle,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import { FailureType } from '../core/failure-types.js';
import { rolloutsMayStart } from '../core/policy-versions.js';
import type { CampaignConfig, CampaignState, CampaignStatus, PoolVersion } from '../schemas/campaign.js';
import type { EvaluationResult, GrpoStepResult } from '../schemas/pipeline.js';
import {
  pauseSignal,
  previousStepDoneSignal,
  replayStepUpdate,
  rolloutsCollectedSignal,
  type RolloutsCollected,
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
  maxStalenessOf,
  neededExports,
  pipelinedStepInput,
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
    ...(config.costs ? { costs: config.costs } : {}),
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
            applied: state.referenceGated ?? true,
            dropped: state.droppedByReference ?? null,
            solved: state.solvedByReference ?? null,
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

/** A step short of informative groups with none lost to infrastructure: the current policy solves or fails every task it drew. */
function poolExhausted(cause: Error | undefined): boolean {
  if (!(cause instanceof ApplicationFailure) || cause.type !== FailureType.shortOfInformativeGroups) return false;
  const [details] = cause.details as [{ infraGroups?: number }?];
  return details?.infraGroups === 0;
}

/** One run of the campaign workflow: its config and state, and what its handlers read and set beside the state. */
interface CampaignRun {
  config: CampaignConfigWithQueues;
  id: string;
  state: CampaignState;
  currentChild: string | null;
  /** The GRPO step whose child is running, if any: it counts as started for stopAfterStep and setMaxSteps. */
  runningStep: number | null;
  /** Set once the training loop is over: the final evaluation no longer looks at maxSteps. */
  finishing: boolean;
  replayRequested: boolean;
  tracker: ActivityInterfaceFor<TrackingActivities>;
}

const stepsStarted = (run: CampaignRun) => run.runningStep ?? run.state.step;

/** Signals pause, resume and stopAfterStep; queries status and state; updates setMaxSteps and replayStep. */
function setControlHandlers(run: CampaignRun): void {
  const { state, id } = run;
  setHandler(pauseSignal, () => void (state.paused = true));
  setHandler(resumeSignal, () => void (state.paused = false));
  setHandler(stopAfterStepSignal, (step?: number) => {
    state.stopAfterStep = Math.max(step ?? 0, stepsStarted(run));
  });
  setHandler(statusQuery, () => statusOf(id, state, run.currentChild));
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
        const started = stepsStarted(run);
        if (!Number.isInteger(maxSteps) || maxSteps < 1)
          throw new Error(`setMaxSteps: ${maxSteps} is not a positive integer`);
        if (maxSteps < started)
          throw new Error(`setMaxSteps: ${maxSteps} is below the ${started} steps already started`);
        if (run.finishing) throw new Error(`setMaxSteps: the campaign has finished training (phase ${state.phase})`);
      },
    },
  );
  setHandler(
    replayStepUpdate,
    async (step: number) => {
      run.replayRequested = true;
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
}

/** A task set's last two path segments ("pools/rl-pool"): enough to recognise it in a one-line summary. */
const shortPath = (p: string) =>
  p
    .replace(/^file:\/\//, '')
    .split('/')
    .filter(Boolean)
    .slice(-2)
    .join('/');

/** A child's search attributes and its line in the Temporal UI, with where its episodes are read. */
function childOptions(run: CampaignRun, step: number, split: 'train' | 'eval', summary: string) {
  return {
    typedSearchAttributes: [
      { key: CampaignIdKey, value: run.id },
      { key: StepKey, value: step },
      { key: SplitKey, value: split },
    ],
    staticSummary: summary,
    staticDetails: `Campaign \`${run.id}\`. Episodes: \`finalstate episode list --campaign ${run.id} --step ${step}\`; one episode: \`finalstate episode show ID\`.`,
  };
}

/** Runs a child workflow, which the status query names while it runs. */
async function runChild<T>(run: CampaignRun, workflowId: string, start: () => Promise<T>): Promise<T> {
  run.currentChild = workflowId;
  try {
    return await start();
  } finally {
    run.currentChild = null;
  }
}

/** Metrics to TensorBoard / W&B (Python, on the gpu worker); a tracker that fails costs a warning, never the campaign. */
async function track(run: CampaignRun, step: number, scalars: Record<string, number>): Promise<void> {
  const tracking = run.config.tracking;
  if (!tracking || (tracking.tensorboard === false && !tracking.wandb)) return;
  try {
    const to = [
      ...(tracking.tensorboard !== false ? ['TensorBoard'] : []),
      ...(tracking.wandb ? [`W&B (${tracking.wandb.mode})`] : []),
    ].join(' + ');
    await run.tracker.logMetrics.executeWithOptions(
      { summary: `step ${step}: ${Object.keys(scalars).length} scalars to ${to}` },
      [{ campaignId: run.id, step, scalars, tracking }],
    );
  } catch (err) {
    log.warn('logMetrics failed; the campaign goes on without these metrics in the trackers', {
      step,
      error: (err as Error).message,
    });
  }
}

const waitWhilePaused = ({ state }: CampaignRun) => condition(() => !state.paused || state.stopAfterStep !== null);

/** Refuses an update that will not fit the gpu worker's memory before anything runs. */
async function runPreflight(run: CampaignRun): Promise<void> {
  const workflowId = `${run.id}/preflight`;
  await runChild(run, workflowId, () =>
    executeChild(updatePreflight, {
      workflowId,
      staticSummary: `memory preflight of the policy update · ${shortPath(run.config.update.baseModel)}`,
      args: [preflightInput(run.config)],
    }),
  );
}

/** Probes the candidates with the base policy and, with referenceProbe, with the reference policy too. */
async function probeCandidates(run: CampaignRun): Promise<void> {
  const { config, state, id } = run;
  const train = config.tasks.train;
  const workflowId = `${id}/probe`;
  const { n, nMax, adaptive } = config.probing;
  const perTask = adaptive ? `${n} to ${nMax} episodes per task, adaptive` : `${n} episodes per task`;
  const result = await runChild(run, workflowId, () =>
    executeChild(probe, {
      workflowId,
      ...childOptions(
        run,
        0,
        train.split,
        `probe the base policy · ${shortPath(train.taskSet)} (${train.split}) · ${perTask}`,
      ),
      args: [probeInput(config)],
    }),
  );
  state.probeResultSet = result.resultSet;
  addChildTotals(state, result);
  const reference = referenceProbeInput(config);
  if (reference) {
    const referenceId = `${id}/probe-reference`;
    const referenceResult = await runChild(run, referenceId, () =>
      executeChild(probe, {
        workflowId: referenceId,
        ...childOptions(
          run,
          0,
          train.split,
          `probe the reference policy (solvability gate) · ${shortPath(train.taskSet)} (${train.split}) · ${reference.n} episodes per task`,
        ),
        args: [reference],
      }),
    );
    state.referenceResultSet = referenceResult.resultSet;
    state.referenceGated = config.referenceProbe!.gate;
    addChildTotals(state, referenceResult);
  }
}

/** Freezes the RL pool from the probe rows (freezePool) and sets the training domains. */
async function selectPool({ config, state, id }: CampaignRun): Promise<void> {
  const frozen = await freezePool({
    campaignId: id,
    probeResultSet: state.probeResultSet!,
    ...(state.referenceResultSet && config.referenceProbe
      ? {
          reference: {
            resultSet: state.referenceResultSet,
            gate: config.referenceProbe.gate,
            model: config.referenceProbe.endpoint.model,
            baseUrl: config.referenceProbe.endpoint.baseUrl,
          },
        }
      : {}),
    selection: config.selection,
  });
  state.pool = frozen.pool;
  state.poolUri = frozen.poolUri;
  if (frozen.reference) {
    state.droppedByReference = frozen.reference.dropped;
    state.solvedByReference = frozen.reference.solved;
  }
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
}

/** Evaluates the step-`step` policy (0: the base policy) on the held-out tasks, and records its metrics. */
async function evaluate(run: CampaignRun, step: number): Promise<void> {
  const { config, state } = run;
  const workflowId = `${run.id}/eval-step-${step}`;
  const started = Date.now();
  const result: EvaluationResult = await runChild(run, workflowId, () =>
    executeChild(evaluation, {
      workflowId,
      ...childOptions(
        run,
        step,
        config.tasks.eval.split,
        `evaluate ${step === 0 ? 'the base policy' : `the step-${step} policy`} · ${shortPath(config.tasks.eval.taskSet)} (${config.tasks.eval.split}) × k ${config.evaluation.k}`,
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
  await track(run, step, evaluationScalars(result, (Date.now() - started) / 1000));
}

/**
 * Re-probe every candidate with the step-`step` policy (the probe child, fixed n) and swap the pool's tasks that
 * left the kept bins (reprobePool). A changed pool starts a fresh sampler epoch, so every task of the new pool is
 * drawn once before any is drawn twice.
 */
async function reprobe(run: CampaignRun, step: number): Promise<void> {
  const { config, state } = run;
  const workflowId = `${run.id}/reprobe-step-${step}`;
  const input = reprobeInput(config, state, step);
  const result = await runChild(run, workflowId, () =>
    executeChild(probe, {
      workflowId,
      ...childOptions(
        run,
        step,
        config.tasks.train.split,
        `re-probe the step-${step} policy · ${shortPath(config.tasks.train.taskSet)} (${config.tasks.train.split}) · ${input.n} episodes per task`,
      ),
      args: [input],
    }),
  );
  addChildTotals(state, result);
  const swapped = await reprobePool({
    campaignId: run.id,
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
}

const overBudget = ({ config, state }: CampaignRun) =>
  (config.budgets.maxEpisodes !== undefined && state.episodes.done >= config.budgets.maxEpisodes) ||
  (config.budgets.maxCostUsd !== undefined && state.costUsd >= config.budgets.maxCostUsd);
const stopRequested = ({ state }: CampaignRun) => state.stopAfterStep !== null && state.step >= state.stopAfterStep;

/**
 * Runs GRPO step `step` as a child and records it. A failed step is kept in `failedStep`: 'failed' waits for
 * replayStep, 'exhausted' ends training (stopWhenPoolExhausted and a pool that no longer informs).
 */
async function runGrpoStep(run: CampaignRun, step: number): Promise<'done' | 'failed' | 'exhausted'> {
  const { config, state } = run;
  const workflowId = stepWorkflowId(run, step);
  let result;
  run.runningStep = step;
  try {
    result = await runChild(run, workflowId, () =>
      executeChild(grpoStep, {
        workflowId,
        ...stepChildOptions(run, step),
        args: [grpoStepInput(config, state, step)],
      }),
    );
  } catch (err) {
    if (!(err instanceof ChildWorkflowFailure)) throw err;
    return recordFailedStep(run, step, err);
  } finally {
    run.runningStep = null;
  }
  await recordStep(run, step, result);
  return 'done';
}

/** The child id of step `step`: a replay requested for a failed step gets an id of its own. */
function stepWorkflowId(run: CampaignRun, step: number): string {
  const workflowId = run.replayRequested
    ? `${run.id}/step-${step}-replay-${run.state.replays}`
    : `${run.id}/step-${step}`;
  run.replayRequested = false;
  return workflowId;
}

function stepChildOptions(run: CampaignRun, step: number) {
  const { config, state } = run;
  return childOptions(
    run,
    step,
    config.tasks.train.split,
    `GRPO step ${step}/${state.maxSteps} · ${config.groupsPerStep} groups × ${config.rolloutsPerGroup} rollouts from a pool of ${state.pool?.length ?? 0} tasks`,
  );
}

/** Records a step whose child failed; see runGrpoStep for what each answer means. */
function recordFailedStep(run: CampaignRun, step: number, err: ChildWorkflowFailure): 'failed' | 'exhausted' {
  const { config, state } = run;
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
    return 'exhausted';
  }
  state.phase = 'step-failed';
  return 'failed';
}

/** Records a completed step: its summary, the policy it published, the campaign's totals; metrics to the trackers. */
async function recordStep(run: CampaignRun, step: number, result: GrpoStepResult): Promise<void> {
  const { state } = run;
  state.failedStep = null;
  state.step = step;
  state.sampler = result.sampler;
  state.steps.push(result.summary);
  state.policyVersion = result.policyVersion;
  state.checkpointUri = result.checkpointUri;
  addChildTotals(state, result);
  upsertSearchAttributes([{ key: StepKey, value: step }]);
  await track(run, step, stepScalars(result.summary, result.costUsd));
}

/** Whether the history is renewed (continueAsNew) or the pool re-probed after step `step`: nothing may run past it. */
function boundaryAfter({ config }: CampaignRun, step: number): boolean {
  return (
    (config.reprobe !== undefined && step % config.reprobe.everySteps === 0) ||
    step % config.continueAsNewEverySteps === 0 ||
    workflowInfo().continueAsNewSuggested
  );
}

/**
 * After a finished step that is not the last: evaluate, re-probe and renew the history when their turn comes. With
 * a later step already running (asynchronous steps), only the evaluation: the campaign starts no step past a
 * re-probe or a renewal, and a renewal Temporal suggested meanwhile waits for the steps in flight to finish.
 */
async function betweenSteps(run: CampaignRun, step: number, laterStepRunning = false): Promise<void> {
  const { config, state } = run;
  if (step % config.evaluation.everySteps === 0) {
    state.phase = 'eval';
    await evaluate(run, step);
    state.phase = 'train';
  }
  if (laterStepRunning) return;
  if (config.reprobe && step % config.reprobe.everySteps === 0) {
    state.phase = 'reprobe';
    await reprobe(run, step);
    state.phase = 'train';
  }
  if (step % config.continueAsNewEverySteps === 0 || workflowInfo().continueAsNewSuggested) {
    await condition(allHandlersFinished);
    await continueAsNew<typeof campaign>({ config, state: { ...state, runs: state.runs + 1 } });
  }
}

/** Why training cannot go on from here (maxSteps, a stop, the budget); paused is not a reason, it waits. */
const trainingOver = (run: CampaignRun) =>
  run.state.step >= run.state.maxSteps || stopRequested(run) || overBudget(run);

/** The GRPO steps, until maxSteps, a stop, the budget or an exhausted pool; a failed step waits for replayStep. */
async function train(run: CampaignRun): Promise<void> {
  if (maxStalenessOf(run.config) > 0) return trainPipelined(run);
  const { state } = run;
  while (state.phase === 'train' || state.phase === 'step-failed') {
    if (state.phase === 'step-failed') {
      await condition(() => run.replayRequested || state.stopAfterStep !== null);
      if (!run.replayRequested) break;
      state.phase = 'train';
    }
    if (trainingOver(run)) break;
    await waitWhilePaused(run);
    if (stopRequested(run)) break;
    const step = state.step + 1;
    const outcome = await runGrpoStep(run, step);
    if (outcome === 'exhausted') break;
    if (outcome === 'failed') continue;
    if (step < state.maxSteps && !stopRequested(run) && !overBudget(run)) await betweenSteps(run, step);
  }
}

/** A step child of an asynchronous campaign, from its start until the campaign has recorded it. */
interface StepInFlight {
  step: number;
  workflowId: string;
  handle: ChildWorkflowHandle<typeof grpoStep>;
  collected?: RolloutsCollected;
  outcome?: { result: GrpoStepResult } | { failure: unknown };
}

/**
 * The GRPO steps of an asynchronous campaign (async.maxStaleness K >= 1): step n+1's child starts as soon as step
 * n's rollouts are collected and its window allows (core/policy-versions.ts: the oldest version it may sample is
 * published), so its rollouts run while step n trains and publishes; it trains once the campaign tells it step n
 * published (previousStepDone), after step n's evaluation when one is due. Steps are recorded in order, exactly as
 * the synchronous loop records them. A failed step cancels the steps started after it (their rollouts were sampled
 * around a policy that will be redone) and waits for replayStep; no step starts past a re-probe or a renewal of the
 * history, nor while paused, past a stop, maxSteps or the budget.
 */
async function trainPipelined(run: CampaignRun): Promise<void> {
  const { config, state } = run;
  const maxStaleness = maxStalenessOf(config);
  const inFlight: StepInFlight[] = [];
  setHandler(rolloutsCollectedSignal, (collected) => {
    const entry = inFlight.find((f) => f.step === collected.step);
    if (entry) entry.collected = collected;
  });
  const newest = () => inFlight[inFlight.length - 1];
  const nextStep = () => (newest()?.step ?? state.step) + 1;
  const showRunning = () => {
    run.runningStep = newest()?.step ?? null;
    run.currentChild = newest()?.workflowId ?? null;
  };
  const mayStart = (): boolean => {
    const last = newest();
    const step = nextStep();
    if (state.phase !== 'train' || state.paused || step > state.maxSteps || overBudget(run)) return false;
    if (state.stopAfterStep !== null && step > state.stopAfterStep) return false;
    if (last && (!last.collected || last.outcome || boundaryAfter(run, last.step))) return false;
    return rolloutsMayStart(step, maxStaleness, state.step);
  };

  const start = async () => {
    const step = nextStep();
    const last = newest();
    const workflowId = stepWorkflowId(run, step);
    const input = pipelinedStepInput(config, state, step, {
      sampler: last?.collected?.sampler ?? state.sampler,
      awaitPrevious: last !== undefined,
    });
    const handle = await startChild(grpoStep, { workflowId, ...stepChildOptions(run, step), args: [input] });
    const entry: StepInFlight = { step, workflowId, handle };
    inFlight.push(entry);
    showRunning();
    handle.result().then(
      (result) => void (entry.outcome = { result }),
      (failure: unknown) => void (entry.outcome = { failure }),
    );
  };

  const finish = async (entry: StepInFlight): Promise<'done' | 'failed' | 'exhausted'> => {
    const outcome = entry.outcome!;
    if ('failure' in outcome) {
      if (!(outcome.failure instanceof ChildWorkflowFailure)) throw outcome.failure;
      for (const later of inFlight)
        await getExternalWorkflowHandle(later.workflowId)
          .cancel()
          .catch(() => undefined);
      await condition(() => inFlight.every((f) => f.outcome !== undefined));
      inFlight.length = 0;
      showRunning();
      return recordFailedStep(run, entry.step, outcome.failure);
    }
    await recordStep(run, entry.step, outcome.result);
    if (entry.step < state.maxSteps && !stopRequested(run) && !overBudget(run))
      await betweenSteps(run, entry.step, inFlight.length > 0);
    showRunning();
    const next = inFlight[0];
    if (next && !next.outcome)
      await next.handle
        .signal(previousStepDoneSignal, {
          checkpointUri: state.checkpointUri!,
          neededExports: neededExports(config, state, next.step),
        })
        .catch(() => undefined); // a child that ended meanwhile: its outcome is read next
    return 'done';
  };

  for (;;) {
    if (state.phase === 'step-failed') {
      await condition(() => run.replayRequested || state.stopAfterStep !== null);
      if (!run.replayRequested) break;
      state.phase = 'train';
    }
    const oldest = inFlight[0];
    if (oldest?.outcome) {
      inFlight.shift();
      if ((await finish(oldest)) === 'exhausted') break;
      continue;
    }
    if (mayStart()) {
      await start();
      continue;
    }
    if (inFlight.length === 0) {
      // Nothing runs and nothing may start: the end, unless the campaign is only paused.
      const over = () => trainingOver(run) || (state.stopAfterStep !== null && nextStep() > state.stopAfterStep);
      if (over()) break;
      await condition(() => mayStart() || over());
      continue;
    }
    await condition(() => inFlight[0]!.outcome !== undefined || mayStart());
  }
  run.runningStep = null;
  run.currentChild = null;
}

/**
 * A training campaign: memory preflight -> probe -> select -> evaluate the base policy -> GRPO steps (child workflows
 * "<campaignId>/step-<n>") with an evaluation every E steps and after the last -> done. Pause, resume and stop are
 * signals, status a query, setMaxSteps and replayStep updates. The history is renewed with continueAsNew every N steps
 * (or when Temporal suggests it), carrying the state.
 */
export async function campaign(input: CampaignInput): Promise<CampaignResult> {
  const { config } = input;
  const state: CampaignState = input.state ?? initialState(config);
  const run: CampaignRun = {
    config,
    id: config.campaignId,
    state,
    currentChild: null,
    runningStep: null,
    finishing: false,
    replayRequested: false,
    tracker: proxyActivities<TrackingActivities>({
      taskQueue: config.taskQueues.gpu,
      startToCloseTimeout: '2 minutes',
      retry: { maximumAttempts: 3, initialInterval: '2 seconds' },
    }),
  };
  setControlHandlers(run);
  upsertSearchAttributes([
    { key: CampaignIdKey, value: run.id },
    { key: StepKey, value: state.step },
  ]);

  // Histories recorded before the memory preflight existed replay without it.
  if (state.phase === 'probe' && patched('update-memory-preflight')) await runPreflight(run);
  if (state.phase === 'probe') {
    await waitWhilePaused(run);
    await probeCandidates(run);
    state.phase = 'select';
  }
  if (state.phase === 'select') {
    await selectPool(run);
    state.phase = 'base-eval';
  }
  if (state.phase === 'base-eval') {
    await waitWhilePaused(run);
    await evaluate(run, 0);
    state.phase = 'train';
  }
  await train(run);

  run.finishing = true;
  if (state.step > 0 && !state.evalResultSets.some((e) => e.step === state.step)) {
    state.phase = 'eval';
    await evaluate(run, state.step);
  }
  state.phase = state.step >= state.maxSteps ? 'done' : 'stopped';
  await condition(allHandlersFinished);
  return { campaignId: run.id, state };
}

import {
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  executeChild,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { describeFailure } from '../../core/failure-causes.js';
import { FailureType } from '../../core/failure-types.js';
import type { GrpoStepResult } from '../../schemas/pipeline.js';
import { grpoStep } from '../grpo-step.js';
import { addChildTotals, grpoStepInput } from '../inputs.js';
import { markdownText } from '../audit.js';
import { StepKey } from '../search-attributes.js';
import { stepScalars } from '../tracking.js';
import { childOptions, runChild, track } from './children.js';
import { evaluate } from './evaluate.js';
import { reprobe } from './pool.js';
import { overBudget, stopRequested, trainingOver, waitWhilePaused, type CampaignRun } from './run.js';

/**
 * The GRPO steps, one after another, until maxSteps, a stop, the budget or an exhausted pool; a failed step waits
 * for replayStep. With async.maxStaleness >= 1 the steps overlap instead (runAsyncSteps, async-steps.ts); both
 * loops share what follows: the child's id and options, recording a step or its failure, what runs between steps.
 */
export async function runSteps(run: CampaignRun): Promise<void> {
  const { state } = run;
  while (state.phase === 'train' || state.phase === 'step-failed') {
    if (!(await replayIfFailed(run))) break;
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

/**
 * After a failed step: wait for replayStep (true: go on, the replay's child gets an id of its own) or a stop
 * (false: training is over). Any other phase: true at once.
 */
export async function replayIfFailed(run: CampaignRun): Promise<boolean> {
  const { state } = run;
  if (state.phase !== 'step-failed') return true;
  await condition(() => run.replayRequested || state.stopAfterStep !== null);
  if (!run.replayRequested) return false;
  state.phase = 'train';
  return true;
}

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
export function stepWorkflowId(run: CampaignRun, step: number): string {
  const workflowId = run.replayRequested
    ? `${run.id}/step-${step}-replay-${run.state.replays}`
    : `${run.id}/step-${step}`;
  run.replayRequested = false;
  return workflowId;
}

export function stepChildOptions(run: CampaignRun, step: number) {
  const { config, state } = run;
  return childOptions(
    run,
    step,
    config.tasks.train.split,
    `GRPO step ${step}/${state.maxSteps} · ${config.groupsPerStep} groups × ${config.rolloutsPerGroup} rollouts from a pool of ${state.pool?.length ?? 0} tasks`,
  );
}

/** A step short of informative groups with none lost to infrastructure: the current policy solves or fails every task it drew. */
function poolExhausted(cause: Error | undefined): boolean {
  if (!(cause instanceof ApplicationFailure) || cause.type !== FailureType.shortOfInformativeGroups) return false;
  const [details] = cause.details as [{ infraGroups?: number }?];
  return details?.infraGroups === 0;
}

/**
 * Records a step whose child failed; see runGrpoStep for what each answer means. Its message is the whole failure
 * (core/failure-causes.ts: the child, the activity, each cause); one that waits for replayStep is also the campaign's
 * current details in the Temporal UI until a step completes.
 */
export function recordFailedStep(run: CampaignRun, step: number, err: ChildWorkflowFailure): 'failed' | 'exhausted' {
  const { config, state } = run;
  const cause = err.cause;
  state.failedStep = { step, message: describeFailure(err) };
  if (config.stopWhenPoolExhausted && poolExhausted(cause)) {
    state.stopAfterStep = state.step;
    return 'exhausted';
  }
  setCurrentDetails(
    `**Step ${step} failed**: ${markdownText(state.failedStep.message)}\n\nRe-run it: \`finalstate campaign replay-step ${run.id} ${step}\``,
  );
  state.phase = 'step-failed';
  return 'failed';
}

/** Records a completed step: its summary, the policy it published, the campaign's totals; metrics to the trackers. */
export async function recordStep(run: CampaignRun, step: number, result: GrpoStepResult): Promise<void> {
  const { state } = run;
  if (state.failedStep) setCurrentDetails('');
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
export function boundaryAfter({ config }: CampaignRun, step: number): boolean {
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
export async function betweenSteps(run: CampaignRun, step: number, laterStepRunning = false): Promise<void> {
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
  if (step % config.continueAsNewEverySteps === 0 || workflowInfo().continueAsNewSuggested) await run.renewHistory();
}

import {
  ChildWorkflowFailure,
  condition,
  getExternalWorkflowHandle,
  startChild,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import { rolloutsMayStart } from '../../core/policy-versions.js';
import type { GrpoStepResult } from '../../schemas/pipeline.js';
import { onRolloutsCollected, tellPreviousStepDone, type RolloutsCollected } from '../async-exchange.js';
import { grpoStep } from '../grpo-step.js';
import { asyncStepInput, maxStalenessOf, neededExports } from '../inputs.js';
import { overBudget, stopRequested, trainingOver, type CampaignRun } from './run.js';
import {
  betweenSteps,
  boundaryAfter,
  recordFailedStep,
  recordStep,
  replayIfFailed,
  stepChildOptions,
  stepWorkflowId,
} from './steps.js';

/** A step child of an asynchronous campaign, from its start until the campaign has recorded it. */
interface StepInFlight {
  step: number;
  workflowId: string;
  handle: ChildWorkflowHandle<typeof grpoStep>;
  collected?: RolloutsCollected;
  outcome?: { result: GrpoStepResult } | { failure: unknown };
}

/**
 * The GRPO steps of an asynchronous campaign (async.maxStaleness K >= 1; the exchange with the step children:
 * workflows/async-exchange.ts): step n+1's child starts as soon as step n's rollouts are collected and its window
 * allows (core/policy-versions.ts: the oldest version it may sample is published), so its rollouts run while step n
 * trains and publishes; it trains once the campaign tells it step n published (previousStepDone), after step n's
 * evaluation when one is due. Steps are recorded in order, exactly as the synchronous loop records them. A failed
 * step cancels the steps started after it (their rollouts were sampled around a policy that will be redone) and waits
 * for replayStep; no step starts past a re-probe or a renewal of the history, nor while paused, past a stop, maxSteps
 * or the budget.
 */
export async function runAsyncSteps(run: CampaignRun): Promise<void> {
  const { config, state } = run;
  const maxStaleness = maxStalenessOf(config);
  const inFlight: StepInFlight[] = [];
  onRolloutsCollected((collected) => {
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
    const input = asyncStepInput(config, state, step, {
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
    // a child that ended meanwhile: its outcome is read next
    if (next && !next.outcome)
      await tellPreviousStepDone(next.handle, {
        checkpointUri: state.checkpointUri!,
        neededExports: neededExports(config, state, next.step),
      });
    return 'done';
  };

  for (;;) {
    if (!(await replayIfFailed(run))) break;
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

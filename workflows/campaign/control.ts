import { setHandler } from '@temporalio/workflow';
import {
  pauseSignal,
  replayStepUpdate,
  resumeSignal,
  setMaxStepsUpdate,
  stateQuery,
  statusQuery,
  stopAfterStepSignal,
} from '../definitions.js';
import { stepsStarted, type CampaignRun } from './run.js';
import { statusOf } from './status.js';

/** Signals pause, resume and stopAfterStep; queries status and state; updates setMaxSteps and replayStep. */
export function setControlHandlers(run: CampaignRun): void {
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

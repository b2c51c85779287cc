import { condition, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { CampaignConfig, CampaignState } from '../../schemas/campaign.js';
import type { TrackingActivities } from '../gpu.js';
import type { CampaignConfigWithQueues } from '../inputs.js';

/** The campaign's input: its config (task queues filled in) and, in a continued run, the state it carries. */
export interface CampaignInput {
  config: CampaignConfigWithQueues;
  state?: CampaignState;
}

export interface CampaignResult {
  campaignId: string;
  state: CampaignState;
}

/** One run of the campaign workflow: its config and state, and what its handlers read and set beside the state. */
export interface CampaignRun {
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
  /** Renews the history: the campaign continues as new with the state it carries (never returns). */
  renewHistory(): Promise<never>;
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

export const stepsStarted = (run: CampaignRun) => run.runningStep ?? run.state.step;

export const waitWhilePaused = ({ state }: CampaignRun) =>
  condition(() => !state.paused || state.stopAfterStep !== null);

export const overBudget = ({ config, state }: CampaignRun) =>
  (config.budgets.maxEpisodes !== undefined && state.episodes.done >= config.budgets.maxEpisodes) ||
  (config.budgets.maxCostUsd !== undefined && state.costUsd >= config.budgets.maxCostUsd);

export const stopRequested = ({ state }: CampaignRun) =>
  state.stopAfterStep !== null && state.step >= state.stopAfterStep;

/** Why training cannot go on from here (maxSteps, a stop, the budget); paused is not a reason, it waits. */
export const trainingOver = (run: CampaignRun) =>
  run.state.step >= run.state.maxSteps || stopRequested(run) || overBudget(run);

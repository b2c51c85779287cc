import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CampaignState, CampaignStatus, ChildProgress } from '../schemas/campaign.js';

/** Messages of the campaign workflow; the CLI imports these same definitions. */
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
/** Finish the step in progress (or step N, if given and later), evaluate, and end the campaign. */
export const stopAfterStepSignal = defineSignal<[step?: number]>('stopAfterStep');
export const statusQuery = defineQuery<CampaignStatus>('status');
/** The whole carried state (step summaries, eval points, result sets): what `finalstate report` reads. */
export const stateQuery = defineQuery<CampaignState>('state');
/** Change the number of steps while running; rejected (validator) below the steps already started. Returns the old value. */
export const setMaxStepsUpdate = defineUpdate<number, [maxSteps: number]>('setMaxSteps');
/** Re-run a failed step as a new child workflow; rejected unless step N is the failed one. */
export const replayStepUpdate = defineUpdate<string, [step: number]>('replayStep');

/** Live counts of a probe, evaluation or grpoStep child. */
export const progressQuery = defineQuery<ChildProgress>('progress');

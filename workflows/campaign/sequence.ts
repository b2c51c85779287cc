import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  isCancellation,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { describeFailure } from '../../core/failure-causes.js';
import type { CampaignState } from '../../schemas/campaign.js';
import type { TrackingActivities } from '../gpu.js';
import { maxStalenessOf } from '../inputs.js';
import { CampaignIdKey, StepKey } from '../search-attributes.js';
import { runAsyncSteps } from './async-steps.js';
import { probeCandidates, runPreflight } from './before-training.js';
import { setControlHandlers } from './control.js';
import { evaluate } from './evaluate.js';
import { selectPool } from './pool.js';
import { initialState, waitWhilePaused, type CampaignInput, type CampaignResult, type CampaignRun } from './run.js';
import { runSteps } from './steps.js';

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
    async renewHistory() {
      await condition(allHandlersFinished);
      return continueAsNew<typeof campaign>({ config, state: { ...state, runs: state.runs + 1 } });
    },
  };
  setControlHandlers(run);
  await runPhases(run).catch((err: unknown) => {
    throw wholeFailure(err);
  });
  return { campaignId: run.id, state };
}

/** The campaign's phases, from where its state stands. */
async function runPhases(run: CampaignRun): Promise<void> {
  const { config, state } = run;
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
  if (maxStalenessOf(config) > 0) await runAsyncSteps(run);
  else await runSteps(run);

  run.finishing = true;
  if (state.step > 0 && !state.evalResultSets.some((e) => e.step === state.step)) {
    state.phase = 'eval';
    await evaluate(run, state.step);
  }
  state.phase = state.step >= state.maxSteps ? 'done' : 'stopped';
  await condition(allHandlersFinished);
}

/**
 * What the campaign fails with when a child (the preflight, the probe, an evaluation) or an activity failed: the
 * failure with its whole cause as its message (core/failure-causes.ts), which the Temporal UI shows and `campaign
 * status` prints, keeping the type of the ApplicationFailure that the activity or child raised and the original as
 * its cause. Anything else (a cancellation, continueAsNew) goes on as it is.
 */
function wholeFailure(err: unknown): unknown {
  if (!(err instanceof ChildWorkflowFailure || err instanceof ActivityFailure) || isCancellation(err)) return err;
  let type: string | undefined;
  for (let f: unknown = err; f instanceof Error && type === undefined; f = f.cause)
    if (f instanceof ApplicationFailure) type = f.type ?? undefined;
  return ApplicationFailure.create({ type, message: describeFailure(err), nonRetryable: true, cause: err });
}

import {
  condition,
  defineSignal,
  getExternalWorkflowHandle,
  setHandler,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { SamplerState } from '../schemas/campaign.js';
import type { AsyncStep, GrpoStepInput } from '../schemas/pipeline.js';

/**
 * Asynchronous steps (campaign.async.maxStaleness K >= 1), the whole exchange between the campaign and its step
 * children: step n signals `rolloutsCollected` once its groups are in (the campaign may then start step n+1, whose
 * rollouts run while step n trains); the campaign signals `previousStepDone` to step n+1 once step n published (and
 * was evaluated, when its turn came), and only then does step n+1 train.
 */

/** Step child -> campaign: the step's rollouts are collected; the next step draws from `sampler`. */
export interface RolloutsCollected {
  step: number;
  sampler: SamplerState;
}
export const rolloutsCollectedSignal = defineSignal<[RolloutsCollected]>('rolloutsCollected');

/** Campaign -> step child: the previous step published its checkpoint; what the step's input could not know. */
export interface PreviousStepDone {
  checkpointUri: string;
  neededExports: number[];
}
export const previousStepDoneSignal = defineSignal<[PreviousStepDone]>('previousStepDone');

/** A step input's asynchronous part; inputs recorded before it was named `async` carry it as `pipeline`. */
export const asyncPartOf = (input: GrpoStepInput): AsyncStep | undefined => input.async ?? input.pipeline;

/** The step's side, set up when the step starts (a signal may come at any time after). */
export class StepExchange {
  private previous: PreviousStepDone | undefined;

  constructor(private readonly part: AsyncStep) {
    setHandler(previousStepDoneSignal, (done) => void (this.previous = done));
  }

  /** Tell the campaign the rollouts are in, then wait for the previous step to publish if it was still training. */
  async rolloutsCollected(step: number, sampler: SamplerState): Promise<void> {
    const parent = workflowInfo().parent;
    if (parent)
      await getExternalWorkflowHandle(parent.workflowId, parent.runId).signal(rolloutsCollectedSignal, {
        step,
        sampler,
      });
    if (this.part.awaitPrevious) await condition(() => this.previous !== undefined);
  }

  /** The input to train with: the previous step's checkpoint and exports, once it told them. */
  trainInput(input: GrpoStepInput): GrpoStepInput {
    return this.previous
      ? { ...input, previousCheckpointUri: this.previous.checkpointUri, neededExports: this.previous.neededExports }
      : input;
  }
}

/** The campaign's side: hear each step's rollouts collected. */
export function onRolloutsCollected(handler: (collected: RolloutsCollected) => void): void {
  setHandler(rolloutsCollectedSignal, handler);
}

/** The campaign's side: tell a step that the one before it published; a step that ended meanwhile is let be. */
export async function tellPreviousStepDone(handle: ChildWorkflowHandle<never>, done: PreviousStepDone): Promise<void> {
  await handle.signal(previousStepDoneSignal, done).catch(() => undefined);
}

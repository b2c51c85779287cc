import { proxyActivities } from '@temporalio/workflow';
import type { PolicyUpdateInput, PolicyUpdateResult } from '../schemas/training.js';

/** The activity the Python GPU worker serves (python/finalstate/gpu_worker), called by name. */
export interface PolicyUpdateActivities {
  policyUpdate(input: PolicyUpdateInput): Promise<PolicyUpdateResult>;
}

/** One policy update on the Python worker of `gpuTaskQueue`: the call the training campaign makes each step. */
export async function policyUpdateSmokeWorkflow(input: {
  gpuTaskQueue: string;
  update: PolicyUpdateInput;
}): Promise<PolicyUpdateResult> {
  const { policyUpdate } = proxyActivities<PolicyUpdateActivities>({
    taskQueue: input.gpuTaskQueue,
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '2 minutes',
    retry: { maximumAttempts: 3, initialInterval: '1 second' },
  });
  return await policyUpdate(input.update);
}

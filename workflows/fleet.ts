import { condition, proxyActivities } from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import type { GrpoStepInput } from '../schemas/pipeline.js';

const { reconcileFleet } = proxyActivities<ControlActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3, initialInterval: '2 seconds', maximumInterval: '30 seconds' },
});

/**
 * `rollouts`, with the rollout fleet kept on the version they sample: reconcileFleet (activities/fleet.ts) at once,
 * then every `fleet.reconcileEvery` until `rollouts` settles, so a server that restarted or was ejected by a failed
 * publish rejoins by itself. A reconcile still running when the rollouts settle is awaited, so it never overlaps the
 * publish that follows. Inputs recorded before the fleet carry no `fleet`: nothing runs, as then.
 */
export async function whileReconcilingFleet<T>(input: GrpoStepInput, rollouts: Promise<T>): Promise<T> {
  const { fleet, policyServers } = input;
  if (fleet === undefined || policyServers.length === 0) return rollouts;
  let settled = false;
  rollouts.then(
    () => (settled = true),
    () => (settled = true),
  );
  const current = {
    version: input.step - 1,
    checkpointUri: input.step === 1 ? input.update.baseModel : (input.previousCheckpointUri ?? input.update.baseModel),
  };
  while (!settled) {
    // Best effort: a reconcile that fails leaves the fleet as it was, and the next round tries again.
    await reconcileFleet({ servers: policyServers, current, baseModel: input.update.baseModel }).catch(() => undefined);
    await condition(() => settled, fleet.reconcileEvery);
  }
  return rollouts;
}

import { condition, proxyActivities } from '@temporalio/workflow';
import type { ControlActivities } from '../activities/index.js';
import type { ReconcileFleetInput } from '../activities/fleet.js';
import type { FleetConfig } from '../schemas/campaign.js';
import type { GrpoStepInput } from '../schemas/pipeline.js';
import { adapterPrefixOf } from '../core/policy-versions.js';
import { asyncPartOf } from './async-exchange.js';

const { reconcileFleet } = proxyActivities<ControlActivities>({
  startToCloseTimeout: '10 minutes',
  // It heartbeats every 5 s (also through a long reload); a round lost with its control worker holds the end of the
  // rollouts no longer than this.
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '2 seconds', maximumInterval: '30 seconds' },
});

/** What keeps the fleet on the current version while rollouts run: the input of reconcileFleet and how often. */
export type FleetReconcile = ReconcileFleetInput & { every: FleetConfig['reconcileEvery'] };

/**
 * The reconcile of a step's rollouts: the fleet serves the previous step's version (the base model before step 1); an
 * asynchronous step's, the newest version published when it started (a newer one published meanwhile is "ahead", left
 * alone, as is a server a publish is loading). Undefined for inputs recorded before the fleet (no `fleet`) or without
 * servers: nothing runs, as then.
 */
export function stepReconcile(input: GrpoStepInput): FleetReconcile | undefined {
  if (input.fleet === undefined || input.policyServers.length === 0) return undefined;
  const { baseModel } = input.update;
  const version = asyncPartOf(input)?.publishedVersion ?? input.step - 1;
  return {
    servers: input.policyServers,
    current: {
      version,
      checkpointUri: version === 0 ? baseModel : (input.previousCheckpointUri ?? baseModel),
    },
    baseModel,
    ...(input.update.lora ? { adapterPrefix: adapterPrefixOf(input.campaignId) } : {}),
    every: input.fleet.reconcileEvery,
  };
}

/**
 * `rollouts`, with the rollout fleet kept on `reconcile.current`: reconcileFleet (activities/fleet.ts) at once, then
 * every `reconcile.every` until `rollouts` settles, so a server that restarted or was ejected by a failed publish
 * rejoins by itself. A round still running when the rollouts settle is awaited. Under asynchronous steps the previous
 * step publishes while these rollouts run: `current` is the last version whose publish completed, and the per-server
 * lease that every publish and every reconcile of a server holds (storage/server-leases.ts) keeps the two apart, so a
 * round never publishes an older version over a newer one.
 */
export async function whileReconcilingFleet<T>(
  reconcile: FleetReconcile | undefined,
  rollouts: Promise<T>,
): Promise<T> {
  if (reconcile === undefined) return rollouts;
  const { every, ...input } = reconcile;
  let settled = false;
  rollouts.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    // Best effort: a round that fails leaves the fleet as it was, and the next one tries again.
    await reconcileFleet(input).catch(() => undefined);
    await condition(() => settled, every);
  }
  return rollouts;
}

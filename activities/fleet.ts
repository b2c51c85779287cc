import { localPathOf } from '../storage/artifacts.js';
import { checkHfCheckpoint } from '../storage/hf-checkpoint.js';
import { servedVersionNumber, versionNumber } from '../core/policy-versions.js';
import { adminTokenOf } from '../runtime/clients/admin-token.js';
import {
  defaultPublishOptions,
  isNewerVersionServed,
  isReloadingVersion,
  publishCheckpoint,
  type PublishOptions,
} from '../runtime/clients/policy-admin.js';
import { readServedVersion } from '../runtime/fleet/probe.js';
import type { PolicyServerRef } from '../schemas/clients.js';
import { publishToEach } from './training.js';
import { listedAdapterVersions, publishAdapter } from '../runtime/clients/adapter-admin.js';

export interface ReconcileFleetInput {
  servers: PolicyServerRef[];
  /** What the fleet should serve: the last version published, and its checkpoint (version 0: the base model). */
  current: { checkpointUri: string; version: number };
  /** The weights a server starts with (the base model): what a restarted vLLM whose reload fails is pointed back to. */
  baseModel: string;
  /** A LoRA campaign: the current version is the adapter `<adapterPrefix><version>` beside the base model. */
  adapterPrefix?: string;
}

/** What reconcileFleet found on a server, and did. */
export interface ReconciledServer {
  url: string;
  /** The version it reported before (null: it did not answer, or a publish held its lease and it was not asked). */
  reported: string | null;
  action: 'current' | 'ahead' | 'publishing' | 'unreachable' | 'republished' | 'failed';
  detail?: string;
}

/**
 * reconcileFleet: the rollout fleet brought back to the current version without anyone's hand. Every server's served
 * version is read (runtime/fleet/probe.ts); the current checkpoint is published to each that answers and is behind:
 * a restarted vLLM ("default"), a server ejected by a failed publish, one left paused ("reloading-N", N not newer
 * than current) by a reload that failed. A server that does not answer is left for the next round, and a newer
 * version ("ahead", or a newer publish under way) is never replaced by an older one. Failures are reported, never
 * thrown: the episode workers keep such a server out of service until it serves a version their episodes accept.
 * Each server is read and published to holding its lease (`publish.leases`, storage/server-leases.ts), which every
 * publish holds too: a server whose lease a publish holds is left for the next round ("publishing"), so a step's
 * reconcile may run while the previous step publishes (asynchronous steps) and still never sets a server back. The
 * project's server refuses an older version by itself as well (a 409: "ahead").
 */
export function createFleetActivities({
  publish = defaultPublishOptions,
  adminTokenFile,
}: {
  publish?: PublishOptions;
  adminTokenFile?: string;
}) {
  return {
    async reconcileFleet(input: ReconcileFleetInput): Promise<{ servers: ReconciledServer[] }> {
      const { current } = input;
      const weightsPath = localPathOf(current.checkpointUri);
      const { leases, ...unleased } = publish;
      const outcomes = await publishToEach(input.servers, async (server, _index, onStep) => {
        const token = adminTokenOf(server, adminTokenFile);
        const options = { ...unleased, onStep, ...(token ? { token } : {}) };
        const reconcile = () =>
          input.adapterPrefix !== undefined
            ? reconcileAdapter(server, weightsPath, current.version, input.adapterPrefix, options)
            : reconcileCheckpoint(server, weightsPath, input, options);
        if (leases === undefined) return reconcile();
        const leased = await leases.tryHold(server.url, reconcile);
        if (leased.held) return leased.value;
        return { url: server.url, reported: null, action: 'publishing', detail: 'a publish holds its lease' } as const;
      });
      return {
        servers: outcomes.map((o, i) =>
          o.status === 'fulfilled'
            ? o.value
            : { url: input.servers[i]!.url, reported: null, action: 'failed', detail: String(o.reason) },
        ),
      };
    },
  };
}

/** A server of a full fine-tuning campaign: its version read, and the current checkpoint published when it is behind. */
async function reconcileCheckpoint(
  server: PolicyServerRef,
  weightsPath: string,
  { current, baseModel }: ReconcileFleetInput,
  options: PublishOptions,
): Promise<ReconciledServer> {
  let reported: string;
  try {
    reported = await readServedVersion(server, {
      timeoutMs: options.requestTimeoutMs,
      ...(options.token ? { headers: { authorization: `Bearer ${options.token}` } } : {}),
    });
  } catch (err) {
    return { url: server.url, reported: null, action: 'unreachable', detail: (err as Error).message };
  }
  const served = servedVersionNumber(reported);
  const entry = { url: server.url, reported };
  if (served !== undefined && served >= current.version)
    return { ...entry, action: served > current.version ? 'ahead' : 'current' };
  if (isReloadingVersion(reported) && versionNumber(reported.slice('reloading-'.length)) > current.version)
    return { ...entry, action: 'publishing' };
  try {
    await checkHfCheckpoint(weightsPath);
    // A restarted server serves the weights it started with; one behind on a version, those of that version,
    // whose checkpoint this activity does not know: a vLLM whose reload fails is then left paused.
    const previous = served === 0 ? { weightsPath: localPathOf(baseModel), version: 0 } : undefined;
    await publishCheckpoint(server, weightsPath, current.version, options, previous);
    return { ...entry, action: 'republished', detail: `now serves version ${current.version}` };
  } catch (err) {
    // The project's server took a newer version since it was read (its own check; the lease keeps our publishers out).
    if (isNewerVersionServed(err)) return { ...entry, action: 'ahead', detail: err.message };
    return { ...entry, action: 'failed', detail: (err as Error).message };
  }
}

/**
 * A LoRA campaign's server: the current version's adapter loaded (a restarted server has none; version 0 is the base
 * model every server serves). Adapters are loaded beside the base model, so nothing is ever replaced.
 */
async function reconcileAdapter(
  server: PolicyServerRef,
  adapterPath: string,
  version: number,
  prefix: string,
  options: PublishOptions,
): Promise<ReconciledServer> {
  let loaded: number[];
  try {
    loaded = await listedAdapterVersions(server, prefix, options);
  } catch (err) {
    return { url: server.url, reported: null, action: 'unreachable', detail: (err as Error).message };
  }
  const entry = { url: server.url, reported: loaded.length ? String(loaded[0]) : '0' };
  // A newer adapter loaded (the next step published meanwhile): the older one is not loaded back beside it.
  if (loaded.length > 0 && loaded[0]! > version) return { ...entry, action: 'ahead' };
  if (version === 0 || loaded.includes(version)) return { ...entry, action: 'current' };
  try {
    await publishAdapter(server, adapterPath, version, { prefix }, options);
    return { ...entry, action: 'republished', detail: `now serves adapter version ${version}` };
  } catch (err) {
    return { ...entry, action: 'failed', detail: (err as Error).message };
  }
}

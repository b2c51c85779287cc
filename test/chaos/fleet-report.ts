import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { PublishPolicyInput, PublishPolicyResult } from '../../activities/training.js';
import type { ReconciledServer, ReconcileFleetInput } from '../../activities/fleet.js';
import { eventsOfAllRuns } from '../pipeline/histories.js';
import type { FiredFault } from './faults.js';

/** What the fleet did to one rollout server, read from a step's history: a publish, an ejection, a reconcile's republish. */
export interface FleetChange {
  kind: 'published' | 'ejected' | 'republished';
  url: string;
  version: number;
  /** The step child whose activity did it, and when the activity completed (seconds since the campaign started). */
  child: string;
  at: number;
  detail?: string;
}

/** How a rollout server a fleet fault took out came back: by whom, when, on which version. */
export interface Rejoin {
  kind: FiredFault['kind'];
  slot: string;
  url: string;
  /** The step's publish ejected the server (the publish fault), or null when that is not what the fault does. */
  ejected: boolean | null;
  by: FleetChange | null;
}

/** Every publish, ejection and republish of the campaign's step children, in completion order. */
export async function fleetChanges(client: Client, campaignId: string, startedAt: number): Promise<FleetChange[]> {
  const children = (await eventsOfAllRuns(client, campaignId))
    .flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [])
    .filter((id) => id.includes('/step-'));
  const changes: FleetChange[] = [];
  for (const child of children) {
    const scheduled = new Map<string, { type: string; input: unknown }>();
    for (const e of await eventsOfAllRuns(client, child)) {
      const s = e.activityTaskScheduledEventAttributes;
      const type = s?.activityType?.name;
      if (s && (type === 'publishPolicy' || type === 'reconcileFleet'))
        scheduled.set(String(e.eventId), { type, input: defaultPayloadConverter.fromPayload(s.input!.payloads![0]!) });
      const completed = e.activityTaskCompletedEventAttributes;
      const activity = completed && scheduled.get(String(completed.scheduledEventId));
      if (!activity) continue;
      const at = (Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6 - startedAt) / 1000;
      const result = defaultPayloadConverter.fromPayload<unknown>(completed.result!.payloads![0]!);
      if (activity.type === 'publishPolicy') {
        const { version } = activity.input as PublishPolicyInput;
        const { servers, ejected } = result as PublishPolicyResult;
        for (const p of servers) changes.push({ kind: 'published', url: p.url, version, child, at });
        for (const x of ejected) changes.push({ kind: 'ejected', url: x.url, version, child, at, detail: x.reason });
      } else {
        const { current } = activity.input as ReconcileFleetInput;
        for (const r of (result as { servers: ReconciledServer[] }).servers)
          if (r.action === 'republished')
            changes.push({
              kind: 'republished',
              url: r.url,
              version: current.version,
              child,
              at,
              detail: r.reported ?? '',
            });
      }
    }
  }
  return changes.sort((a, b) => a.at - b.at);
}

/**
 * For each fleet fault that fired, how its server came back: the first publish or republish to it after the fault
 * (a killed server restarts on the base model; an ejected one still serves the version before). The publish fault
 * also needs its step's publish to have ejected the server, and its server back only after that ejection.
 */
export function rejoins(fired: FiredFault[], changes: FleetChange[], url: string): Rejoin[] {
  const served = (from: number) =>
    changes.find((c) => c.url === url && c.at >= from && (c.kind === 'published' || c.kind === 'republished')) ?? null;
  return fired.flatMap((f): Rejoin[] => {
    if (f.kind === 'rollout-server-sigkill')
      return [{ kind: f.kind, slot: f.slot, url, ejected: null, by: served(f.at + f.outageSeconds) }];
    // restarted while its publish was held: back by that publish, let go after the restart (or a later one)
    if (f.kind === 'rollout-restart-mid-publish')
      return [{ kind: f.kind, slot: f.slot, url, ejected: null, by: served(f.at) }];
    if (f.kind !== 'rollout-publish-fail') return [];
    const step = /^step-(\d+)\//.exec(f.slot)?.[1];
    const ejection = changes.find(
      (c) => c.kind === 'ejected' && c.url === url && new RegExp(`/step-${step}(-replay-\\d+)?$`).test(c.child),
    );
    return [
      { kind: f.kind, slot: f.slot, url, ejected: ejection !== undefined, by: ejection ? served(ejection.at) : null },
    ];
  });
}

/** What one rollout server (the project's policy server) served, by its own log, and what it serves at the end. */
export interface ServedVersions {
  url: string;
  /** Per start of its process: the version it started on, then each version it swapped in, in order. */
  starts: number[][];
  /** The version it reports once the campaign is over. */
  atEnd: string;
}

/**
 * The versions a project's policy server served, from its log (appended across its starts): the version in each
 * "policy server ready" line opens a start, each "serving ... as policy version N" is a reload it swapped in.
 */
export function servedVersionsOfLog(text: string): number[][] {
  const starts: number[][] = [];
  for (const line of text.split('\n')) {
    const ready = /policy server ready on \S+ \(policy version (\d+)/.exec(line);
    if (ready) starts.push([Number(ready[1])]);
    const swapped = /serving .* as policy version (\d+)$/.exec(line);
    if (swapped && starts.length > 0) starts.at(-1)!.push(Number(swapped[1]));
  }
  return starts;
}

/** The starts of a server in which a version came after a newer one: a server set back. */
export const setBack = (starts: number[][]): number[][] =>
  starts.filter((versions) => versions.some((v, i) => i > 0 && v < versions[i - 1]!));

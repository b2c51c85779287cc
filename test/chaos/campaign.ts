import path from 'node:path';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { campaignConfigOf, loadPreset, SERVED_MODEL_NAME } from '../../cli/demo/preset.js';
import { campaignStatus, startCampaign } from '../../cli/commands/campaign.js';
import { campaignStateOf } from '../../cli/commands/report.js';
import { localPathOf } from '../../storage/artifacts.js';
import type { LoadedConfig } from '../../schemas/config.js';
import { connectClient } from '../../workers/temporal-client.js';
import { fromRoot } from '../../core/paths.js';
import { CampaignConfig, type CampaignState } from '../../schemas/campaign.js';
import { EpisodeLimits } from '../../schemas/episode.js';
import { evaluation } from '../../workflows/evaluation.js';
import { DemoPreset } from '../../schemas/demo.js';
import { freePort } from '../helpers/index.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { progressQuery } from '../../workflows/definitions.js';
import { CHAOS_CLOCK_MS, due, inject, type FiredFault, type Moment, type PlannedFault } from './faults.js';
import { chaosMachine, type ChaosMachine } from './processes.js';
import { startChaosStack, type ChaosStack } from './stack.js';
import type { ReconciledServer } from '../../activities/fleet.js';
import { eventsOfAllRuns, millis } from '../pipeline/histories.js';

const STARTED = proto.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

/** The episodes' heartbeat timeout in the chaos campaign; a paused or partitioned worker stays away 10 s longer. */
export const EPISODE_HEARTBEAT_TIMEOUT_MS = 15_000;

/** The agent turns an episode's last heartbeat reports done (it heartbeats `{ turn }` while it runs). */
function turnsDone(payload: proto.temporal.api.common.v1.IPayload | undefined): number {
  if (!payload) return 0;
  const details = defaultPayloadConverter.fromPayload<{ turn?: number } | undefined>(payload);
  return typeof details?.turn === 'number' ? details.turn : 0;
}

/**
 * The chaos campaign: the smoke preset's tiny served model and task counts, several GRPO steps, retries tuned so a
 * dead process is noticed in seconds (an operator's setting; the defaults are minutes), one replacement round so a
 * group whose episode exhausts its retries is refilled rather than failing the step, evaluation only before the
 * first and after the last step. Synchronous steps (maxStaleness 0) unless the asynchronous run asks for K.
 */
export function chaosPreset(steps: number, policyPort: number, maxStaleness = 0): DemoPreset {
  const { preset } = loadPreset('smoke');
  return DemoPreset.parse({
    ...preset,
    name: 'chaos',
    description: 'chaos suite campaign',
    policyServer: { ...preset.policyServer, port: policyPort },
    campaign: {
      ...preset.campaign,
      steps,
      async: { maxStaleness },
      limits: { ...preset.campaign.limits, timeoutMs: CHAOS_CLOCK_MS },
      maxReplacementRounds: 1,
      evaluation: { ...preset.campaign.evaluation, everySteps: steps },
      update: { ...preset.campaign.update, heartbeatTimeout: '15s' },
      // The default retry policy (attempts, backoff), with a heartbeat timeout an operator would set for a fleet that
      // must notice a dead worker in seconds (the default, 2 minutes, suits slow models).
      episodes: { heartbeatTimeout: `${EPISODE_HEARTBEAT_TIMEOUT_MS / 1000}s`, startToCloseTimeout: '4m' },
    },
  });
}

/** Wall time of one slot (see PlannedFault) of the campaign, seconds since the campaign started. */
export interface SlotTime {
  slot: string;
  start: number;
  end: number;
}

/** The oracle companion's campaign id: its evaluations' rows and records are filed under it. */
export const oracleId = (campaignId: string) => `${campaignId}-oracle`;

/**
 * Oracle evaluations run on the same fleet, one after another, for as long as the campaign runs: the oracle writes
 * every golden call (the tiny model rarely calls a tool, so its episodes alone would leave the effects check little
 * to check) and always earns 1, so any 0 among them is an infrastructure failure scored as a task failure.
 */
async function oracleRounds(
  client: Client,
  config: CampaignConfig,
  until: () => boolean,
  started: string[],
  abandon: AbortSignal,
): Promise<void> {
  const id = oracleId(config.campaignId);
  const settings = {
    policy: { kind: 'oracle' as const },
    user: { kind: 'scripted' as const },
    limits: EpisodeLimits.parse({}),
    retry: config.episodes,
    queues: config.taskQueues!,
    seed: 1,
  };
  for (let round = 0; !until(); round++) {
    const workflowId = `${id}/round-${round}`;
    started.push(workflowId);
    const handle = await client.withAbortSignal(abandon, () =>
      client.workflow.start(evaluation, {
        taskQueue: config.taskQueues!.control,
        workflowId,
        args: [
          {
            campaignId: id,
            resultSet: workflowId,
            step: 0,
            source: { taskSet: fromRoot('tasks'), split: 'train', profile: 'mini', limit: 2 },
            k: 1,
            window: 1,
            settings,
          },
        ],
      }),
    );
    // The result's long poll fails while Temporal restarts: ask again.
    for (;;) {
      try {
        await client.withAbortSignal(abandon, () => handle.result());
        break;
      } catch (err) {
        if (abandon.aborted) return;
        if ((err as Error).name === 'WorkflowFailedError') throw err;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
}

export interface CampaignRun {
  campaignId: string;
  /** The oracle companion's evaluation workflows. */
  oracleWorkflows: string[];
  config: CampaignConfig;
  stack: ChaosStack;
  client: Client;
  fleet: ChaosMachine;
  /** The campaign's rollout servers as it reaches them (policyServers): the second through the fault proxy. */
  fleetUrls: string[];
  state: CampaignState | null;
  status: string;
  /** When the campaign started (epoch ms): slot times count from here. */
  startedAt: number;
  slots: SlotTime[];
  fired: FiredFault[];
  /** Processes that exited on their own during the run (each was restarted). */
  crashes: string[];
  seconds: number;
  /** Stops the fleet and the stack (after the invariants have been read from them). */
  close(): Promise<void>;
}

function slotOf(phase: string, step: number, inUpdate: boolean): string {
  switch (phase) {
    case 'train':
      return `step-${step + 1}/${inUpdate ? 'update' : 'episodes'}`;
    case 'eval':
      return `eval-${step}`;
    default:
      return phase;
  }
}

/** The activities of a step's update (batch, policy update, publish); its rollouts also store rows and reconcile. */
const UPDATE_ACTIVITIES = new Set(['buildBatch', 'policyUpdate', 'publishPolicy']);

/** The pending activities of a child workflow, as the fault triggers read them, and when it started (epoch ms). */
async function pendingOf(
  client: Client,
  workflowId: string,
): Promise<{ pending: Moment['pending']; since: number | undefined }> {
  const described = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => null);
  const pending = (described?.raw.pendingActivities ?? []).map((a) => ({
    type: a.activityType?.name ?? '',
    started: a.state === STARTED,
    // an episode heartbeats from its start; it has "heartbeated" (a turn is done) once its details say so
    heartbeated:
      a.activityType?.name === 'runEpisode'
        ? turnsDone(a.heartbeatDetails?.payloads?.[0]) > 0
        : (a.heartbeatDetails?.payloads?.length ?? 0) > 0,
    beat: (a.heartbeatDetails?.payloads?.length ?? 0) > 0,
    worker: a.lastWorkerIdentity ?? '',
  }));
  return { pending, since: described?.startTime.getTime() };
}

/** The campaign at one poll: its phase, and one moment per slot running (one, for synchronous steps). */
interface Moments {
  phase: string;
  moments: Moment[];
}

/** A synchronous campaign: one child at a time, status's currentChild. */
async function moment(client: Client, campaignId: string, stepInUpdate: Set<number>): Promise<Moments | null> {
  const s = await campaignStatus(client, campaignId).catch(() => null);
  if (!s) return null;
  const pending = s.currentChild ? (await pendingOf(client, s.currentChild)).pending : [];
  if (s.phase === 'train' && pending.some((p) => UPDATE_ACTIVITIES.has(p.type))) stepInUpdate.add(s.step + 1);
  return {
    phase: s.phase,
    moments: [
      {
        slot: slotOf(s.phase, s.step, stepInUpdate.has(s.step + 1)),
        done: s.child?.done ?? 0,
        inFlight: s.child?.inFlight ?? 0,
        pending,
      },
    ],
  };
}

/** The slot of a child workflow of the campaign, by its id ("<id>/step-3", "<id>/step-3-replay-1", "<id>/eval-step-0"). */
function childSlot(campaignId: string, workflowId: string, stepInUpdate: Set<number>): string | undefined {
  const name = workflowId.slice(campaignId.length + 1);
  const step = /^step-(\d+)(-replay-\d+)?$/.exec(name);
  if (step) return `step-${step[1]}/${stepInUpdate.has(Number(step[1])) ? 'update' : 'episodes'}`;
  const evaluation = /^eval-step-(\d+)$/.exec(name);
  if (evaluation) return evaluation[1] === '0' ? 'base-eval' : `eval-${evaluation[1]}`;
  return name === 'probe' ? 'probe' : undefined;
}

/**
 * An asynchronous campaign: the children in flight (the step that trains and publishes, the one that collects beside
 * it, an evaluation), read from the campaign's pending children, each its own slot; status's currentChild names only
 * the newest. A step is in its update from its first update activity on (its wait for the previous step's publish
 * counts to its rollouts). Between children, the phase (select, done).
 */
async function asyncMoments(client: Client, campaignId: string, stepInUpdate: Set<number>): Promise<Moments | null> {
  const s = await campaignStatus(client, campaignId).catch(() => null);
  if (!s) return null;
  const described = await client.workflow
    .getHandle(campaignId)
    .describe()
    .catch(() => null);
  const children = (described?.raw.pendingChildren ?? []).map((c) => c.workflowId ?? '').sort();
  const moments: Moment[] = [];
  for (const child of children) {
    const { pending, since } = await pendingOf(client, child);
    const step = /\/step-(\d+)(-replay-\d+)?$/.exec(child);
    if (step && pending.some((p) => UPDATE_ACTIVITIES.has(p.type))) stepInUpdate.add(Number(step[1]));
    const slot = childSlot(campaignId, child, stepInUpdate);
    if (!slot) continue;
    const progress = await client.workflow
      .getHandle(child)
      .query(progressQuery)
      .catch(() => null);
    // a child's rollouts or evaluation begin with it; its update, when first seen
    const began = since !== undefined && !slot.endsWith('/update') ? { since } : {};
    moments.push({ slot, ...began, done: progress?.done ?? 0, inFlight: progress?.inFlight ?? 0, pending });
  }
  if (moments.length === 0 && s.phase !== 'train') moments.push({ slot: s.phase, done: 0, inFlight: 0, pending: [] });
  return { phase: s.phase, moments };
}

/** Resolves once the campaign has recorded step `step`, or ended (a step that failed is not waited for). */
async function stepRecorded(client: Client, campaignId: string, step: number): Promise<void> {
  for (const deadline = Date.now() + 600_000; ;) {
    if (Date.now() > deadline) throw new Error(`step ${step} of ${campaignId} not recorded after 10 minutes`);
    const s = await campaignStatus(client, campaignId).catch(() => null);
    if (s && (s.step >= step || ['done', 'step-failed', 'stopped'].includes(s.phase))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * What the first round of step `step`'s reconcileFleet scheduled after `since` (epoch ms) did on the server at `url`,
 * once that round completed (read from the step child's history); throws when the step's rollouts ended first.
 */
async function reconciledSince(
  client: Client,
  campaignId: string,
  step: number,
  since: number,
  url: string,
): Promise<ReconciledServer> {
  const child = `${campaignId}/step-${step}`;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    const events = await eventsOfAllRuns(client, child).catch(() => []);
    const rounds = new Set<string>();
    for (const e of events) {
      const s = e.activityTaskScheduledEventAttributes;
      if (s?.activityType?.name === 'buildBatch')
        throw new Error(`${child}'s rollouts were collected before a reconcile round ran`);
      if (s?.activityType?.name === 'reconcileFleet' && millis(e.eventTime) >= since) rounds.add(String(e.eventId));
      const done = e.activityTaskCompletedEventAttributes;
      if (done && rounds.has(String(done.scheduledEventId))) {
        const result = defaultPayloadConverter.fromPayload<{ servers: ReconciledServer[] }>(done.result!.payloads![0]!);
        const found = result.servers.find((x) => x.url === url);
        if (found) return found;
      }
    }
  }
  throw new Error(`no reconcile round of ${child} completed within 120 s of ${new Date(since).toISOString()}`);
}

export interface CampaignOptions {
  dir: string;
  campaignId: string;
  steps: number;
  faults: PlannedFault[];
  /** Run once the stack is up, before the fleet starts (builds or finds the base model). */
  prepare: (config: LoadedConfig) => Promise<void>;
  baseModelDir: () => string;
  policyDownMs: number;
  timeoutMs: number;
  log: (line: string) => void;
  /**
   * Asynchronous steps with this K on a rollout fleet of two of the project's policy servers, the second behind a
   * FaultProxy (what the fleet faults hit); absent: synchronous steps on one policy server.
   */
  maxStaleness?: number;
}

/**
 * How often the asynchronous run's fleet is reconciled while rollouts run: an operator's setting for a fleet that must
 * see a restarted or ejected server back within a step of seconds (the default, 30 s, suits steps of minutes).
 */
export const CHAOS_RECONCILE_EVERY = '3s';

/** Brings up a private stack and fleet, runs the campaign to its end while injecting the planned faults. */
export async function runCampaign(options: CampaignOptions): Promise<CampaignRun> {
  const { log } = options;
  let t = performance.now();
  const stack = await startChaosStack(options.dir);
  log(`  stack up (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  await options.prepare(stack.config).catch(async (err: unknown) => {
    await stack.down();
    throw err;
  });
  const baseModelDir = options.baseModelDir();
  const isAsync = options.maxStaleness !== undefined;
  const preset = chaosPreset(options.steps, await freePort(), options.maxStaleness ?? 0);
  const policyPorts = [preset.policyServer.port, ...(isAsync ? [await freePort()] : [])];
  // the second rollout server is reached through this proxy, which the fleet faults make fail its publish
  const rolloutProxy = isAsync ? await new FaultProxy(`http://127.0.0.1:${policyPorts[1]}`).start() : undefined;
  const presetConfig = campaignConfigOf(preset, options.campaignId, baseModelDir);
  const config: CampaignConfig = rolloutProxy
    ? CampaignConfig.parse({
        ...presetConfig,
        policyServers: [`http://127.0.0.1:${policyPorts[0]}`, rolloutProxy.url].map((url) => ({
          url,
          kind: preset.policyServer.engine,
        })),
        fleet: { minServers: 1, reconcileEvery: CHAOS_RECONCILE_EVERY },
      })
    : presetConfig;
  const client = await connectClient(stack.config);
  // the first episode worker reaches Temporal through this proxy, which the partition fault cuts
  const proxy = await TcpProxy.start(stack.config.temporal.address);
  const fleet = chaosMachine(stack.config, stack.env, {
    episodesTemporalAddress: proxy.address,
    queues: config.taskQueues!,
    policyPorts,
    episodeConcurrency: preset.episodeConcurrency,
    servedModelName: SERVED_MODEL_NAME,
    policyServer: preset.policyServer,
    // The supervisor restarts a policy server on what the campaign last published, as `finalstate demo` does; a
    // rollout server of the fleet on the base model, as vLLM's supervisor restarts it with its command line: the
    // fleet's reconcile publishes the current version to it.
    policy: async () => {
      const state = isAsync ? null : await campaignStateOf(client, options.campaignId).catch(() => null);
      return state?.checkpointUri
        ? { checkpointDir: localPathOf(state.checkpointUri), version: Number(state.policyVersion ?? 0) }
        : { checkpointDir: baseModelDir, version: 0 };
    },
  });
  const close = async () => {
    const t = performance.now();
    for (const p of [...fleet.all].reverse()) await p.stop(5000).catch(() => undefined);
    await rolloutProxy?.stop();
    await proxy.close();
    await client.connection.close().catch(() => undefined);
    await stack.down();
    log(`  fleet and stack down (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  };
  const abandon = new AbortController();
  let oracle: Promise<void> | null = null;
  try {
    t = performance.now();
    for (const p of fleet.all) await p.start();
    log(
      `  fleet up (${((performance.now() - t) / 1000).toFixed(1)} s): ${fleet.all.map((p) => `${p.name} pid ${p.pid}`).join(', ')}`,
    );
    await startCampaign(client, stack.config, config);
    const oracleWorkflows: string[] = [];
    let campaignOver = false;
    oracle = oracleRounds(client, config, () => campaignOver, oracleWorkflows, abandon.signal);
    oracle.catch(() => undefined);
    const t0 = performance.now();
    const startedAt = Date.now();
    const now = () => Math.round((performance.now() - t0) / 100) / 10;
    const slots: SlotTime[] = [];
    const fired: FiredFault[] = [];
    const stepInUpdate = new Set<number>();
    let injecting: Promise<void> | null = null;
    let injectError: Error | null = null;
    let final: string | null = null;
    while (final === null) {
      if (injectError) throw injectError;
      if (performance.now() - t0 > options.timeoutMs)
        throw new Error(
          `campaign ${options.campaignId} not finished after ${options.timeoutMs / 1000} s (last slot ${slots.at(-1)?.slot})`,
        );
      // A supervisor restarts a process that died on its own; the run reports it (a crash is a bug, not a fault).
      if (!injecting) {
        for (const p of fleet.all.filter((p) => !p.running)) {
          log(`  ${p.crashes.at(-1) ?? `${p.name} not running`}: restarting it`);
          await p.start();
        }
      }
      const polled = await (isAsync ? asyncMoments : moment)(client, options.campaignId, stepInUpdate);
      if (polled) {
        for (const m of polled.moments) {
          // one slot at a time follows the last; slots that run beside each other each span first to last seen
          const last = isAsync ? slots.find((s) => s.slot === m.slot) : slots.at(-1);
          if (last?.slot !== m.slot) {
            if (last) last.end = now();
            const since = m.since === undefined ? now() : Math.max(0, Math.round((m.since - startedAt) / 100) / 10);
            slots.push({ slot: m.slot, start: Math.min(since, now()), end: now() });
          } else last.end = now();
        }
        if (['done', 'step-failed', 'stopped'].includes(polled.phase)) final = polled.phase;
        const next = options.faults.find(
          (f) =>
            !fired.some((x) => x.kind === f.kind && x.slot === f.slot) &&
            due(f, polled.moments, { episodeWorkerPid: fleet.episodes.pid }),
        );
        const m = polled.moments.find((x) => x.slot === next?.slot);
        if (next && m && !injecting) {
          const at = now();
          const beside = polled.moments
            .filter((x) => x !== m)
            .map((x) => `; ${x.slot}: ${x.done} done, ${x.inFlight} in flight`);
          log(
            `  fault ${next.kind} at ${at} s (${m.slot}: ${m.done} episodes done, ${m.inFlight} in flight${beside.join('')})`,
          );
          const record: FiredFault = { kind: next.kind, slot: m.slot, at, outageSeconds: 0, detail: '' };
          fired.push(record);
          injecting = inject(next.kind, stack, fleet, {
            policyDownMs: options.policyDownMs,
            isolateMs: EPISODE_HEARTBEAT_TIMEOUT_MS + 10_000,
            proxy,
            ...(rolloutProxy ? { rolloutProxy } : {}),
            stepRecorded: (step) => stepRecorded(client, options.campaignId, step),
            reconciledSince: (step, since, url) => reconciledSince(client, options.campaignId, step, since, url),
            slot: m.slot,
          }).then(
            (r) => {
              Object.assign(record, r);
              log(`    ${next.kind}: back after ${r.outageSeconds} s (${r.detail})`);
              injecting = null;
            },
            (err: Error) => {
              record.detail = `injection failed: ${err.message}`;
              injectError = err;
              injecting = null;
            },
          );
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await injecting;
    if (injectError) throw injectError;
    campaignOver = true;
    await oracle;
    const seconds = now();
    const state = await campaignStateOf(client, options.campaignId).catch(() => null);
    return {
      campaignId: options.campaignId,
      oracleWorkflows,
      config,
      stack,
      client,
      fleet,
      fleetUrls: config.policyServers?.map((p) => p.url) ?? fleet.policyUrls,
      state,
      status: final,
      startedAt,
      crashes: fleet.all.flatMap((p) => p.crashes),
      slots: slots.filter((s) => !['done', 'step-failed', 'stopped'].includes(s.slot)),
      fired,
      seconds,
      close,
    };
  } catch (err) {
    // a call still in flight on the client when its connection closes would throw from a timer, killing the driver
    abandon.abort();
    await oracle?.catch(() => undefined);
    await close().catch(() => undefined);
    throw err;
  }
}

export const logDir = (run: CampaignRun) => path.join(run.stack.config.dataPath, 'logs');

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
import type { CampaignConfig, CampaignState } from '../../schemas/campaign.js';
import { EpisodeLimits } from '../../schemas/episode.js';
import { evaluation } from '../../workflows/evaluation.js';
import { DemoPreset } from '../../schemas/demo.js';
import { freePort } from '../helpers/index.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { CHAOS_CLOCK_MS, due, inject, type FiredFault, type Moment, type PlannedFault } from './faults.js';
import { chaosFleet, type ChaosFleet } from './processes.js';
import { startChaosStack, type ChaosStack } from './stack.js';

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
 * first and after the last step.
 */
export function chaosPreset(steps: number, policyPort: number): DemoPreset {
  const { preset } = loadPreset('smoke');
  return DemoPreset.parse({
    ...preset,
    name: 'chaos',
    description: 'chaos suite campaign',
    policyServer: { ...preset.policyServer, port: policyPort },
    campaign: {
      ...preset.campaign,
      steps,
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
  fleet: ChaosFleet;
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

async function moment(
  client: Client,
  campaignId: string,
  stepInUpdate: Set<number>,
): Promise<(Moment & { phase: string }) | null> {
  const s = await campaignStatus(client, campaignId).catch(() => null);
  if (!s) return null;
  let pending: Moment['pending'] = [];
  if (s.currentChild) {
    const described = await client.workflow
      .getHandle(s.currentChild)
      .describe()
      .catch(() => null);
    pending = (described?.raw.pendingActivities ?? []).map((a) => ({
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
  }
  if (s.phase === 'train' && pending.some((p) => p.type !== 'runEpisode' && p.type !== 'listTasks'))
    stepInUpdate.add(s.step + 1);
  return {
    phase: s.phase,
    slot: slotOf(s.phase, s.step, stepInUpdate.has(s.step + 1)),
    done: s.child?.done ?? 0,
    inFlight: s.child?.inFlight ?? 0,
    pending,
  };
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
}

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
  const preset = chaosPreset(options.steps, await freePort());
  const config = campaignConfigOf(preset, options.campaignId, baseModelDir);
  const client = await connectClient(stack.config);
  // the first episode worker reaches Temporal through this proxy, which the partition fault cuts
  const proxy = await TcpProxy.start(stack.config.temporal.address);
  const fleet = chaosFleet(stack.config, stack.env, {
    episodesTemporalAddress: proxy.address,
    queues: config.taskQueues!,
    policyPort: preset.policyServer.port,
    episodeConcurrency: preset.episodeConcurrency,
    servedModelName: SERVED_MODEL_NAME,
    policyServer: preset.policyServer,
    // The supervisor restarts a policy server on what the campaign last published, as `finalstate demo` does.
    policy: async () => {
      const state = await campaignStateOf(client, options.campaignId).catch(() => null);
      return state?.checkpointUri
        ? { checkpointDir: localPathOf(state.checkpointUri), version: Number(state.policyVersion ?? 0) }
        : { checkpointDir: baseModelDir, version: 0 };
    },
  });
  const close = async () => {
    const t = performance.now();
    for (const p of [...fleet.all].reverse()) await p.stop(5000).catch(() => undefined);
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
      const m = await moment(client, options.campaignId, stepInUpdate);
      if (m) {
        const last = slots.at(-1);
        if (last?.slot !== m.slot) {
          if (last) last.end = now();
          slots.push({ slot: m.slot, start: now(), end: now() });
        } else last.end = now();
        if (['done', 'step-failed', 'stopped'].includes(m.phase)) final = m.phase;
        const next = options.faults.find(
          (f) =>
            !fired.some((x) => x.kind === f.kind && x.slot === f.slot) &&
            due(f, m, { episodeWorkerPid: fleet.episodes.pid }),
        );
        if (next && !injecting) {
          const at = now();
          log(`  fault ${next.kind} at ${at} s (${m.slot}: ${m.done} episodes done, ${m.inFlight} in flight)`);
          const record: FiredFault = { kind: next.kind, slot: m.slot, at, outageSeconds: 0, detail: '' };
          fired.push(record);
          injecting = inject(next.kind, stack, fleet, {
            policyDownMs: options.policyDownMs,
            isolateMs: EPISODE_HEARTBEAT_TIMEOUT_MS + 10_000,
            proxy,
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

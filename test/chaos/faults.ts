import type { TcpProxy } from '../helpers/tcp-proxy.js';
import type { FaultProxy } from '../helpers/fault-proxy.js';
import { gradingInFlight } from './grading-faults.js';
import type { ChaosStack } from './stack.js';
import type { ChaosMachine } from './processes.js';
import { sleep } from '../../infra/stack/process.js';
import { freezeEpisodeSessions } from './freeze.js';
import type { ReconciledServer } from '../../activities/fleet.js';

export const FAULT_KINDS = [
  'episode-worker-sigkill',
  'control-worker-sigkill',
  'gpu-worker-sigkill',
  'temporal-restart',
  'postgres-restart',
  'policy-server-stop',
  'episode-worker-pause',
  'episode-worker-partition',
  'grading-cancel',
  'grading-postgres-restart',
  'policy-server-stall',
  'episode-sessions-freeze',
  'gpu-worker-sigkill-overlapped',
  'rollout-server-sigkill',
  'rollout-publish-fail',
  'rollout-restart-mid-publish',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The faults that need the rollout fleet of an asynchronous run (`--async`): two servers, one behind a FaultProxy. */
export const FLEET_FAULT_KINDS: readonly FaultKind[] = [
  'gpu-worker-sigkill-overlapped',
  'rollout-server-sigkill',
  'rollout-publish-fail',
  'rollout-restart-mid-publish',
];

/**
 * Where in the campaign a fault lands: `probe`, `base-eval`, `step-<n>/episodes` (the step's rollouts),
 * `step-<n>/update` (batch, policy update, publish), `eval-<n>`. Each fault gets its own slot, so the wall time a
 * slot took beyond the fault-free baseline's is the time that fault added. With asynchronous steps two slots run at
 * once (`step-<n>/update` beside `step-<n+1>/episodes`): a fault's slot is where it lands, the other one runs beside.
 */
export interface PlannedFault {
  kind: FaultKind;
  slot: string;
}

/**
 * What one slot of the running campaign looks like at one poll: enough to decide whether a fault's moment has come.
 * A synchronous campaign has one at a time; an asynchronous one, one per child in flight.
 */
export interface Moment {
  slot: string;
  /** When the slot began (epoch ms), where the poll knows it: a child's rollouts or evaluation begin with the child. */
  since?: number;
  /** Episodes of the slot's child done so far, and in flight. */
  done: number;
  inFlight: number;
  /**
   * Pending activities of the slot's child: type, started, whether it has heartbeated (an episode: a turn done),
   * whether Temporal holds any heartbeat of it (an episode sends its first one as it starts; the SDK throttles the
   * later ones, so a short episode's turn count may never reach the server), and the identity of the worker that runs
   * it ("<pid>@<host>").
   */
  pending: { type: string; started: boolean; heartbeated: boolean; beat: boolean; worker: string }[];
}

export interface FiredFault {
  kind: FaultKind;
  slot: string;
  /** Seconds since the campaign started. */
  at: number;
  /** How long the fault's own action took: the kill and the supervisor's restart until ready, or the outage. */
  outageSeconds: number;
  detail: string;
}

/** "step-<n>/update" -> "step-<n+1>/episodes": the rollouts an asynchronous step's update runs beside. */
export function nextRollouts(slot: string): string | undefined {
  const m = /^step-(\d+)\/update$/.exec(slot);
  return m ? `step-${Number(m[1]) + 1}/episodes` : undefined;
}

const updateHeartbeated = (m: Moment) => m.pending.some((p) => p.type === 'policyUpdate' && p.started && p.heartbeated);

/**
 * Whether now is the moment, given every slot running (`now`): mid-episode for episode kills, mid-episode on the first
 * episode worker for its pause and partition (the second worker takes the retries), mid-update for the gpu kill, and
 * for the overlapped one also mid-episode in the next step, at once for the grading faults (they wait for a grading
 * themselves; the oracle companion grades an episode every few seconds), before the publish for a failing publish
 * (once the batch or the update runs), once episodes run for a rollout server's kill (which then waits for a completion
 * in flight on it), mid-fan-out for the rest.
 */
export function due(fault: PlannedFault, now: Moment[], fleet: { episodeWorkerPid: number | undefined }): boolean {
  const m = now.find((x) => x.slot === fault.slot);
  if (!m) return false;
  const episodes = m.pending.filter((p) => p.type === 'runEpisode');
  switch (fault.kind) {
    case 'episode-worker-sigkill':
      // Keyed on the first heartbeat, not on a turn done: the SDK throttles the later ones, so on a quiet machine a
      // short probe can end before any turn count reaches Temporal, and the kill would never fire.
      return episodes.some((p) => p.started && p.beat);
    case 'episode-worker-pause':
    case 'episode-worker-partition':
      return episodes.some((p) => p.started && p.beat && p.worker.startsWith(`${fleet.episodeWorkerPid}@`));
    case 'grading-cancel':
    case 'grading-postgres-restart':
      return true;
    case 'gpu-worker-sigkill':
      return updateHeartbeated(m);
    case 'gpu-worker-sigkill-overlapped': {
      const next = now.find((x) => x.slot === nextRollouts(fault.slot));
      return updateHeartbeated(m) && !!next?.pending.some((p) => p.type === 'runEpisode' && p.started);
    }
    case 'rollout-server-sigkill':
      // episodes under way (the injection then waits for a completion in flight on the server)
      return episodes.some((p) => p.started);
    case 'rollout-publish-fail':
      // the update under way and the publish not yet begun
      return (
        m.pending.some((p) => p.type === 'buildBatch' || p.type === 'policyUpdate') &&
        !m.pending.some((p) => p.type === 'publishPolicy')
      );
    case 'rollout-restart-mid-publish': {
      // as the failing publish, and the next step's rollouts under way: their reconcile runs while the publish does
      const next = now.find((x) => x.slot === nextRollouts(fault.slot));
      return (
        m.pending.some((p) => p.type === 'buildBatch' || p.type === 'policyUpdate') &&
        !m.pending.some((p) => p.type === 'publishPolicy') &&
        !!next?.pending.some((p) => p.type === 'runEpisode' && p.started)
      );
    }
    case 'control-worker-sigkill':
      // Only episodes pending: a control activity in flight has no heartbeat and would wait out its start-to-close
      // timeout (10 minutes) before Temporal retried it (see docs/reliability.md, limits).
      return m.done >= 1 && m.inFlight >= 1 && m.pending.length > 0 && m.pending.every((p) => p.type === 'runEpisode');
    default:
      return m.done >= 1 && m.inFlight >= 1 && episodes.some((p) => p.started);
  }
}

const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;

export interface InjectOptions {
  policyDownMs: number;
  /** How long the first episode worker stays paused or partitioned: past the episodes' heartbeat timeout. */
  isolateMs: number;
  /** The proxy between the first episode worker and Temporal. */
  proxy: TcpProxy;
  /** The asynchronous run's fleet: the proxy in front of its second rollout server (the one the fleet faults hit). */
  rolloutProxy?: FaultProxy;
  /** Resolves once the campaign has recorded step `step` (its publish over) or ended. */
  stepRecorded?: (step: number) => Promise<void>;
  /**
   * What the first round of step `step`'s reconcileFleet scheduled after `since` (epoch ms) found and did on the
   * server at `url`, once it completed; throws when the step's rollouts ended first (no round ran).
   */
  reconciledSince?: (step: number, since: number, url: string) => Promise<ReconciledServer>;
  /** The slot the fault landed in. */
  slot?: string;
}
/**
 * The agent's clock of the chaos campaign's episodes (limits.timeoutMs): its tool calls take well under a second, so
 * only an outage counted against it could run it out, and the policy-server stall is longer.
 */
export const CHAOS_CLOCK_MS = 8_000;

/**
 * The policy server stopped (SIGSTOP) this long, longer than the campaign's episode clock (CHAOS_CLOCK_MS): a model
 * server that stalls under load. Shorter than the policy client's per-call timeout, so the waits end when it continues.
 */
export const POLICY_STALL_MS = 15_000;
/**
 * Episode sessions frozen this long: past the statement timeout (10 s) plus the grace after which a tool call's
 * unanswered statement counts as stuck (5 s), so the frozen tool calls end as infrastructure failures.
 */
export const SESSION_FREEZE_MS = 20_000;

/** Injects one fault and, like a supervisor, brings back what it took down. Resolves once all of it is back. */
export async function inject(
  kind: FaultKind,
  stack: ChaosStack,
  fleet: ChaosMachine,
  options: InjectOptions,
): Promise<{ outageSeconds: number; detail: string }> {
  const { policyDownMs, isolateMs, proxy } = options;
  const fleetProxy = () => {
    if (!options.rolloutProxy) throw new Error(`${kind} needs the rollout fleet of an asynchronous run (--async)`);
    return options.rolloutProxy;
  };
  const t = performance.now();
  const restart = async (what: 'episodes' | 'control' | 'gpu') => {
    const p = fleet[what];
    const pid = p.pid;
    await p.kill('SIGKILL');
    await p.start();
    return `SIGKILL pid ${pid}, restarted (start ${p.starts})`;
  };
  let detail: string;
  switch (kind) {
    case 'episode-worker-sigkill':
      detail = await restart('episodes');
      break;
    case 'control-worker-sigkill':
      detail = await restart('control');
      break;
    case 'gpu-worker-sigkill':
      detail = await restart('gpu');
      break;
    case 'temporal-restart':
      await stack.restartTemporal(1000);
      detail = 'dev server stopped (SIGTERM), started again on the same SQLite file';
      break;
    case 'postgres-restart':
      await stack.restartPostgres(3000);
      detail = 'pg_ctl stop -m immediate (a crash), 3 s down, started again (WAL recovery)';
      break;
    case 'episode-worker-pause': {
      const pid = fleet.episodes.pid;
      fleet.episodes.signal('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, isolateMs));
      fleet.episodes.signal('SIGCONT');
      detail = `SIGSTOP pid ${pid} (a GC pause) for ${isolateMs / 1000} s, past the heartbeat timeout, then SIGCONT: its episodes' attempts live on as zombies`;
      break;
    }
    case 'episode-worker-partition': {
      proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, isolateMs));
      proxy.heal();
      detail = `pid ${fleet.episodes.pid} cut off from Temporal alone (its PostgreSQL and policy-server connections up) for ${isolateMs / 1000} s, past the heartbeat timeout, then reconnected: its episodes' attempts live on as zombies`;
      break;
    }
    case 'grading-cancel': {
      const hit = await gradingInFlight(stack.config, 'cancel', 60_000);
      detail = `pg_cancel_backend of the grading statement of ${hit.database} (backend ${hit.pid}): SQLSTATE 57014`;
      break;
    }
    case 'grading-postgres-restart': {
      const hit = await gradingInFlight(stack.config, 'find', 60_000);
      await stack.crashPostgres(3000);
      detail = `SIGQUIT to the postmaster (pg_ctl stop -m immediate) while ${hit.database} was grading (backend ${hit.pid}), 3 s down, started again`;
      break;
    }
    case 'policy-server-stall': {
      const pid = fleet.policyServer.pid!;
      process.kill(pid, 'SIGSTOP');
      await sleep(POLICY_STALL_MS);
      process.kill(pid, 'SIGCONT');
      detail = `SIGSTOP pid ${pid}, ${POLICY_STALL_MS / 1000} s stopped (the episode clock is ${CHAOS_CLOCK_MS / 1000} s), SIGCONT`;
      break;
    }
    case 'episode-sessions-freeze': {
      const frozen = await freezeEpisodeSessions(stack.config, SESSION_FREEZE_MS);
      detail = `SIGSTOP the ${frozen} PostgreSQL processes of episode sessions, ${SESSION_FREEZE_MS / 1000} s stopped, SIGCONT`;
      break;
    }
    case 'policy-server-stop': {
      const pid = fleet.policyServer.pid;
      await fleet.policyServer.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, policyDownMs));
      await fleet.policyServer.start();
      detail = `SIGTERM pid ${pid}, ${policyDownMs / 1000} s down, restarted on the last published checkpoint`;
      break;
    }
    case 'gpu-worker-sigkill-overlapped':
      detail = await restart('gpu');
      break;
    case 'rollout-server-sigkill': {
      const rollouts = fleetProxy();
      const server = fleet.policyServers[1]!;
      const waited = performance.now();
      for (; rollouts.inFlight('/v1/completions') === 0; await sleep(20))
        if (performance.now() - waited > 60_000)
          throw new Error('no completion in flight on the second rollout server for 60 s');
      const inFlight = rollouts.inFlight('/v1/completions');
      const pid = server.pid;
      await server.kill('SIGKILL');
      await server.start();
      detail = `SIGKILL pid ${pid} with ${inFlight} completion${inFlight === 1 ? '' : 's'} in flight on it, restarted on the base model (version 0, as a vLLM restarts): back only through the fleet's reconcile`;
      break;
    }
    case 'rollout-publish-fail': {
      const rollouts = fleetProxy();
      const step = Number(/^step-(\d+)\//.exec(options.slot ?? '')?.[1]);
      if (!options.stepRecorded || !Number.isInteger(step)) throw new Error(`${kind} lands in a step-<n>/update slot`);
      const before = rollouts.requests.length;
      rollouts.block('/collective_rpc', 500);
      try {
        await options.stepRecorded(step);
      } finally {
        rollouts.unblock('/collective_rpc');
      }
      const failed = rollouts.requests.slice(before).filter((r) => r.injected).length;
      detail = `every POST /collective_rpc to the second rollout server answered 500 (${failed} of them) until step ${step} was recorded`;
      break;
    }
    case 'rollout-restart-mid-publish': {
      // Step n's publish to the second server is held at its reload (the server paused, its lease held) while the
      // server restarts on the base model and step n+1's reconcile, whose current version is n-1, runs a round: the
      // race issue 48 named. The completions sent to that server are held as well, so step n+1's episodes on it stay
      // in flight and its rollouts, with their reconcile, go on until the publish is let go.
      const rollouts = fleetProxy();
      const step = Number(/^step-(\d+)\//.exec(options.slot ?? '')?.[1]);
      if (!options.stepRecorded || !options.reconciledSince || !Number.isInteger(step))
        throw new Error(`${kind} lands in a step-<n>/update slot`);
      let letGo!: () => void;
      const held = new Promise<void>((resolve) => (letGo = resolve));
      rollouts.hold('/v1/completions', held);
      rollouts.hold('/collective_rpc', held);
      const server = fleet.policyServers[1]!;
      const pid = server.pid;
      let round: ReconciledServer;
      try {
        const waited = performance.now();
        for (; rollouts.inFlight('/collective_rpc') === 0; await sleep(20))
          if (performance.now() - waited > 180_000)
            throw new Error(`step ${step}'s publish never reached the second rollout server's reload in 180 s`);
        await server.kill('SIGKILL');
        await server.start();
        round = await options.reconciledSince(step + 1, Date.now(), rollouts.url);
      } finally {
        letGo();
      }
      await options.stepRecorded(step);
      detail =
        `step ${step}'s reload of the second rollout server held at its proxy (with the completions sent to it); SIGKILL pid ${pid}, ` +
        `restarted on the base model (version 0); step ${step + 1}'s reconcile meanwhile (current version ${step - 1}): ` +
        `${round.action}${round.detail ? ` (${round.detail})` : ''}; let go, the publish went on to the restarted server`;
      break;
    }
  }
  return { outageSeconds: seconds(t), detail };
}

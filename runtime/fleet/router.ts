import type { RolloutServer } from '../../schemas/clients.js';
import { fleetOf, type PolicyRef } from '../../schemas/episode.js';
import { requestHeadersOf } from '../clients/policy-client.js';
import { serverKey } from '../../schemas/clients.js';
import { probeServer } from './probe.js';

/**
 * The rollout fleet as one episode worker sees it: which servers are in service, and how many of this worker's
 * episodes each one serves. One router per worker process (workers/episode-runtime.ts); the episode runner asks it
 * for a server when an attempt starts (acquire) and keeps that server for the attempt's whole life, so the episode's
 * prefix cache stays warm on it.
 *
 * - **Least loaded.** A new episode goes to the in-service server with the fewest of this worker's episodes in
 *   flight (ties: the fewest given so far, then list order). A resumed attempt asks for the server its turn
 *   checkpoint names and keeps it while it is in service.
 * - **Taken out.** The policy client reports a server that stops answering (connection refused or reset, a timeout,
 *   5xx, an aborted request) or serves a version behind the episode's window; the attempt fails as infrastructure and
 *   is retried, resuming from its turn checkpoint on another server. A server taken out is given no new episode
 *   while any other is in service; with none in service, episodes still go somewhere (and fail, and are retried),
 *   so a fleet of one behaves as a single server always did.
 * - **Back by itself.** Servers taken out are probed in the background (GET /v1/models and the version it serves:
 *   probe.ts) and return once they serve a version of at least their floor: the version the episode that took it
 *   out needed, or, for one that stopped answering, the last version this worker saw it serve. A restarted vLLM
 *   ("default") thus returns once the fleet has published the current version to it (reconcileFleet).
 */

/** A change of a server's state, for logs and tests. */
export interface FleetEvent {
  kind: 'out' | 'in';
  url: string;
  /** Why it was taken out, or what the probe found (the version it serves). */
  detail: string;
}

/** One attempt's hold on a server: what the policy client reports about it, and its release when the attempt ends. */
export interface ServerLease {
  readonly server: RolloutServer;
  /** The server served a completion at this version. */
  served(version: number): void;
  /**
   * The server stopped answering, or serves a version behind the episode's window: taken out until it serves at
   * least `floor` (default: the last version this worker saw it serve).
   */
  failed(reason: string, floor?: number): void;
  /** The attempt ended: one episode fewer in flight on the server. Idempotent. */
  release(): void;
}

export interface FleetRouterOptions {
  /** How often servers taken out are probed. */
  probeIntervalMs?: number;
  /** Timeout of each probe request. */
  probeTimeoutMs?: number;
  onChange?: (event: FleetEvent) => void;
}

interface ServerState {
  server: RolloutServer;
  inFlight: number;
  given: number;
  /** Last version this worker saw the server serve. */
  version: number | undefined;
  /** What the policy client sends (its API key), for the probe. */
  headers: Record<string, string> | undefined;
  out: { reason: string; floor: number; since: number } | undefined;
}

export class FleetRouter {
  private readonly states = new Map<string, ServerState>();
  private readonly listeners: Array<(event: FleetEvent) => void> = [];
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private order = 0;

  constructor(private readonly options: FleetRouterOptions = {}) {
    if (options.onChange) this.listeners.push(options.onChange);
  }

  /** Calls `listener` on every change from now on; returns the function that stops it. */
  subscribe(listener: (event: FleetEvent) => void): () => void {
    this.listeners.push(listener);
    return () => void this.listeners.splice(this.listeners.indexOf(listener) >>> 0, 1);
  }

  /** The server one attempt of a served episode samples from: of its policy's fleet, with its client's API key. */
  leaseFor(policy: Extract<PolicyRef, { kind: 'served' }>, prefer: string | undefined): ServerLease {
    return this.acquire(fleetOf(policy), { prefer, headers: requestHeadersOf(policy.client) });
  }

  /**
   * A server of `fleet` for one attempt: `prefer` (the server its turn checkpoint names) while it is in service,
   * else the least loaded in service. `headers` are what the policy client sends (its API key), for the probe.
   */
  acquire(
    fleet: readonly RolloutServer[],
    options: { prefer?: string | undefined; headers?: Record<string, string> } = {},
  ): ServerLease {
    const { prefer } = options;
    if (fleet.length === 0) throw new Error('a rollout fleet of no server');
    const states = fleet.map((server) => this.stateOf(server));
    if (options.headers) for (const s of states) s.headers = options.headers;
    const inService = states.filter((s) => s.out === undefined);
    const preferred =
      prefer === undefined ? undefined : inService.find((s) => serverKey(s.server.url) === serverKey(prefer));
    const chosen =
      preferred ??
      leastLoaded(inService) ??
      // None in service: the one taken out longest ago, which the probe has had most time to find back.
      [...states].sort((a, b) => a.out!.since - b.out!.since || a.inFlight - b.inFlight)[0]!;
    chosen.inFlight += 1;
    chosen.given += 1;
    let released = false;
    return {
      server: chosen.server,
      served: (version) => void (chosen.version = version),
      failed: (reason, floor) => this.takeOut(chosen, reason, floor ?? chosen.version ?? 0),
      release: () => {
        if (released) return;
        released = true;
        chosen.inFlight -= 1;
      },
    };
  }

  /** Every server this worker has routed to: in flight, given so far, in service or why not. */
  status(): Array<{ url: string; inFlight: number; given: number; out?: string }> {
    return [...this.states.values()].map((s) => ({
      url: s.server.url,
      inFlight: s.inFlight,
      given: s.given,
      ...(s.out ? { out: s.out.reason } : {}),
    }));
  }

  /** Stops the background probe. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private stateOf(server: RolloutServer): ServerState {
    const key = serverKey(server.url);
    let state = this.states.get(key);
    if (!state) {
      state = { server, inFlight: 0, given: 0, version: undefined, headers: undefined, out: undefined };
      this.states.set(key, state);
    }
    return state;
  }

  private takeOut(state: ServerState, reason: string, floor: number): void {
    // A later failure may raise the floor (a newer window), never lower it.
    const wasOut = state.out !== undefined;
    state.out = { reason, floor: Math.max(floor, state.out?.floor ?? 0), since: state.out?.since ?? this.order++ };
    if (!wasOut) this.emit({ kind: 'out', url: state.server.url, detail: reason });
    this.timer ??= setInterval(() => void this.probe(), this.options.probeIntervalMs ?? 2_000).unref();
  }

  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      const out = [...this.states.values()].filter((s) => s.out !== undefined);
      await Promise.all(
        out.map(async (state) => {
          const result = await probeServer(state.server, state.out!.floor, {
            timeoutMs: this.options.probeTimeoutMs ?? 5_000,
            ...(state.headers ? { headers: state.headers } : {}),
          });
          // Taken out again meanwhile, with a newer floor: the next round decides.
          if (!result.ok || state.out === undefined || result.version < state.out.floor) return;
          state.out = undefined;
          state.version = result.version;
          this.emit({ kind: 'in', url: state.server.url, detail: `serves version ${result.version}` });
        }),
      );
      if ([...this.states.values()].every((s) => s.out === undefined)) this.close();
    } finally {
      this.probing = false;
    }
  }

  private emit(event: FleetEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}

function leastLoaded(states: ServerState[]): ServerState | undefined {
  let best: ServerState | undefined;
  for (const s of states)
    if (!best || s.inFlight < best.inFlight || (s.inFlight === best.inFlight && s.given < best.given)) best = s;
  return best;
}

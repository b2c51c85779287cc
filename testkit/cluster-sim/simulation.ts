import { oldestUsableVersion, rolloutsMayStart } from '../../core/policy-versions.js';
import type { ProfiledEpisode } from '../../schemas/turn-profile.js';
import { seededRandom, subSeed } from '../../stats/random.js';
import { EventQueue } from './event-queue.js';
import { RolloutServer, type ServerModel } from './rollout-server.js';

/** The campaign's shape: servers, the batch, the episode workers' slots, the DAPO refill bounds. */
export interface ClusterShape {
  servers: number;
  groups: number;
  rollouts: number;
  /** Episodes the episode workers run at once (workers × concurrency). */
  episodeSlots: number;
  maxReplacementRounds: number;
  extraGroupsInFlight: number;
}

/** How a campaign schedules steps: K (0: synchronous), and whether every episode goes to the first server (today's main). */
export interface SimMode {
  name: string;
  maxStaleness: number;
  oneServer: boolean;
}

/** Draws the episodes of one group of `rollouts` (one task), from a seeded random stream of its own. */
export type GroupDraw = (random: () => number, rollouts: number) => readonly ProfiledEpisode[];

export interface SimSettings {
  shape: ClusterShape;
  steps: number;
  /** The chance that a group is informative (not all 0 or all 1); the others are replaced (DAPO). */
  informativeFraction: number;
  seed: number;
  server: ServerModel;
  /** Multiplies every turn's prompt and sampled tokens (longer episodes than the profile's). */
  tokenScale: number;
  /** Seconds of the update that makes version `step` from a batch of `batchTokens` tokens. */
  updateS: (step: number, batchTokens: number) => number;
  /** Seconds one server takes to reload a published version. */
  publishS: number;
  drawGroup: GroupDraw;
}

/** When each phase of a step began and ended, in simulated seconds. */
export interface StepTimes {
  step: number;
  collectStart: number;
  collectEnd: number;
  updateStart: number;
  updateEnd: number;
  publishEnd: number;
  batchTokens: number;
}

export interface SimResult {
  mode: SimMode;
  wallS: number;
  stepsPerHour: number;
  rolloutIdle: number;
  /** The part of the rollout servers' time spent reloading weights (idle too). */
  rolloutReloading: number;
  trainerIdle: number;
  /** Trained turns by how many versions their sampler was behind the weights the update started from (index). */
  staleness: number[];
  /** Steps that ran out of replacement rounds before G usable groups (trained on fewer). */
  shortSteps: number;
  /** Groups dropped because a turn was older than the step's window (the scheduling rule should keep this 0). */
  staleGroups: number;
  groupsRun: number;
  steps: StepTimes[];
}

interface SimEpisode {
  shape: ProfiledEpisode;
  group: SimGroup;
  server?: RolloutServer;
  turn: number;
  context: number;
  /** The version whose prefix cache holds this episode's context on its server. */
  cachedVersion: number;
  versions: number[];
}

interface SimGroup {
  generation: number;
  informative: boolean;
  episodes: SimEpisode[];
  remaining: number;
  done: boolean;
  usable: boolean;
  cancelled: boolean;
}

/** Runs a campaign of `settings.steps` steps in simulated time and measures it. Deterministic for a seed. */
export function simulateCampaign(settings: SimSettings, mode: SimMode): SimResult {
  return new CampaignSimulation(settings, mode).run();
}

class CampaignSimulation {
  private readonly queue = new EventQueue();
  private readonly servers: RolloutServer[];
  private readonly steps: StepTimes[] = [];
  private readonly staleness: number[] = [];
  private freeSlots: number;
  private readonly slotQueue: SimEpisode[] = [];
  private collecting?: StepCollection;
  private nextCollect = 1;
  private readonly collected = new Map<number, number>();
  private nextUpdate = 1;
  private training = false;
  private published = 0;
  private finishedAt?: number;
  private trainerBusyS = 0;
  private shortSteps = 0;
  private staleGroups = 0;
  private groupsRun = 0;

  constructor(
    readonly settings: SimSettings,
    readonly mode: SimMode,
  ) {
    this.servers = Array.from({ length: settings.shape.servers }, () => new RolloutServer(settings.server, this.queue));
    this.freeSlots = settings.shape.episodeSlots;
  }

  run(): SimResult {
    this.tryCollect(0);
    while (this.finishedAt === undefined) {
      let server: RolloutServer | undefined;
      let serverTime = Infinity;
      for (const s of this.servers) {
        const t = s.nextCompletion();
        if (t < serverTime) [server, serverTime] = [s, t];
      }
      const queued = this.queue.nextTime();
      if (server && serverTime <= queued) server.completeDue(serverTime);
      else if (queued < Infinity) this.queue.runNext();
      else throw new Error(`cluster-sim: ${this.mode.name} stalled at step ${this.nextUpdate}`);
    }
    const wallS = this.finishedAt;
    for (const s of this.servers) s.advance(wallS);
    const busy = this.servers.reduce((sum, s) => sum + s.busyS, 0);
    const reloading = this.servers.reduce((sum, s) => sum + s.reloadingS, 0);
    return {
      mode: this.mode,
      wallS,
      stepsPerHour: (this.settings.steps / wallS) * 3600,
      rolloutIdle: 1 - busy / (this.servers.length * wallS),
      rolloutReloading: reloading / (this.servers.length * wallS),
      trainerIdle: 1 - this.trainerBusyS / wallS,
      staleness: Array.from(this.staleness, (n) => n ?? 0),
      shortSteps: this.shortSteps,
      staleGroups: this.staleGroups,
      groupsRun: this.groupsRun,
      steps: this.steps,
    };
  }

  // The campaign: at most one step collects at a time, and step n collects once the versions its window admits are
  // published (core/policy-versions.ts); step n's update waits for its batch and for step n-1's update and publish.

  private tryCollect(now: number): void {
    const step = this.nextCollect;
    if (this.collecting || step > this.settings.steps) return;
    if (!rolloutsMayStart(step, this.mode.maxStaleness, this.published)) return;
    this.steps[step - 1] = {
      step,
      collectStart: now,
      collectEnd: NaN,
      updateStart: NaN,
      updateEnd: NaN,
      publishEnd: NaN,
      batchTokens: 0,
    };
    this.collecting = new StepCollection(this, step, now);
  }

  collectionDone(step: number, now: number, used: SimGroup[], short: boolean): void {
    if (short) this.shortSteps += 1;
    const times = this.steps[step - 1]!;
    times.collectEnd = now;
    const startWeights = step - 1;
    for (const group of used) {
      for (const ep of group.episodes) {
        times.batchTokens += ep.context + this.scaled(ep.shape.trailingTokens);
        for (const v of ep.versions) this.staleness[startWeights - v] = (this.staleness[startWeights - v] ?? 0) + 1;
      }
    }
    this.collected.set(step, times.batchTokens);
    this.collecting = undefined;
    this.nextCollect += 1;
    this.tryUpdate(now);
    this.tryCollect(now);
  }

  private tryUpdate(now: number): void {
    const step = this.nextUpdate;
    const batchTokens = this.collected.get(step);
    if (this.training || batchTokens === undefined || this.published < step - 1) return;
    this.training = true;
    const seconds = this.settings.updateS(step, batchTokens);
    this.trainerBusyS += seconds;
    this.steps[step - 1]!.updateStart = now;
    this.queue.at(now + seconds, (t) => {
      this.training = false;
      this.nextUpdate += 1;
      this.steps[step - 1]!.updateEnd = t;
      this.publish(step, t);
    });
  }

  private publish(step: number, now: number): void {
    let pending = this.servers.length;
    for (const server of this.servers) {
      server.publish(now, step, this.settings.publishS, (t) => {
        if (--pending > 0) return;
        this.published = step;
        this.steps[step - 1]!.publishEnd = t;
        if (step === this.settings.steps) this.finishedAt = t;
        this.tryUpdate(t);
        this.tryCollect(t);
      });
    }
  }

  // Episodes: a slot on an episode worker, then the least loaded server by episodes in flight for its whole life.

  startEpisode(ep: SimEpisode, now: number): void {
    if (this.freeSlots === 0) return void this.slotQueue.push(ep);
    this.freeSlots -= 1;
    this.queue.at(now + ep.shape.overheadMs / 1000, (t) => {
      if (ep.group.cancelled) return this.endEpisode(ep, t);
      const server = this.mode.oneServer
        ? this.servers[0]!
        : this.servers.reduce((best, s) => (s.episodes < best.episodes ? s : best));
      server.episodes += 1;
      ep.server = server;
      this.startTurn(ep, t);
    });
  }

  private startTurn(ep: SimEpisode, now: number): void {
    const server = ep.server!;
    server.whenServing(now, (t) => {
      const [fresh, sampled] = ep.shape.turns[ep.turn]!.map((n) => this.scaled(n)) as [number, number];
      const prompt = server.cached(ep.cachedVersion) ? fresh : ep.context + fresh;
      ep.cachedVersion = server.version;
      ep.versions.push(server.version);
      ep.context += fresh;
      server.residentTokens += fresh;
      server.runTurn(t, prompt, sampled, ep.context, (end) => {
        ep.context += sampled;
        server.residentTokens += sampled;
        ep.turn += 1;
        if (ep.group.cancelled || ep.turn === ep.shape.turns.length) return this.endEpisode(ep, end);
        this.queue.at(end + ep.shape.envMsPerTurn / 1000, (next) => this.startTurn(ep, next));
      });
    });
  }

  /** A cancelled episode ends after the turn it is in (its request is not aborted on the server). */
  private endEpisode(ep: SimEpisode, now: number): void {
    if (ep.server) {
      ep.server.episodes -= 1;
      ep.server.residentTokens -= ep.context;
    }
    this.freeSlots += 1;
    for (let next = this.slotQueue.shift(); next; next = this.slotQueue.shift()) {
      if (next.group.cancelled) continue;
      this.startEpisode(next, now);
      break;
    }
    const group = ep.group;
    if (--group.remaining === 0 && !group.cancelled) this.collecting?.groupDone(group, now);
  }

  newGroup(step: number, index: number, generation: number): SimGroup {
    const { settings } = this;
    this.groupsRun += 1;
    const random = seededRandom(subSeed(settings.seed, `step-${step}/group-${index}`));
    const informative = random() < settings.informativeFraction;
    const group: SimGroup = {
      generation,
      informative,
      episodes: [],
      remaining: settings.shape.rollouts,
      done: false,
      usable: false,
      cancelled: false,
    };
    group.episodes = settings.drawGroup(random, settings.shape.rollouts).map((shape) => ({
      shape,
      group,
      turn: 0,
      context: 0,
      cachedVersion: -1,
      versions: [],
    }));
    return group;
  }

  countStale(): void {
    this.staleGroups += 1;
  }

  private scaled(tokens: number): number {
    return Math.round(tokens * this.settings.tokenScale);
  }
}

/**
 * One step's groups as workflows/groups.ts streams them: G at once (plus extraGroupsInFlight), a group that is
 * zero-variance or holds a turn older than the window replaced by a fresh draw the moment it is known (at most
 * maxReplacementRounds times per slot), done once the first G usable groups in draw order are back.
 */
class StepCollection {
  private readonly groups: SimGroup[] = [];

  constructor(
    private readonly sim: CampaignSimulation,
    private readonly step: number,
    now: number,
  ) {
    const { groups, extraGroupsInFlight } = sim.settings.shape;
    for (let i = 0; i < groups + extraGroupsInFlight; i++) this.start(0, now);
  }

  private start(generation: number, now: number): void {
    const group = this.sim.newGroup(this.step, this.groups.length, generation);
    this.groups.push(group);
    for (const ep of group.episodes) this.sim.startEpisode(ep, now);
  }

  groupDone(group: SimGroup, now: number): void {
    const { settings, mode } = this.sim;
    group.done = true;
    const oldest = oldestUsableVersion(this.step, mode.maxStaleness);
    const stale = group.episodes.some((ep) => ep.versions.some((v) => v < oldest));
    if (stale) this.sim.countStale();
    group.usable = group.informative && !stale;
    if (!group.usable && group.generation < settings.shape.maxReplacementRounds && !this.settled())
      this.start(group.generation + 1, now);
    const settled = this.settled();
    if (!settled && this.groups.some((g) => !g.done)) return;
    for (const g of this.groups) if (!g.done) g.cancelled = true;
    const used = this.groups.filter((g) => g.usable).slice(0, settings.shape.groups);
    this.sim.collectionDone(this.step, now, used, !settled);
  }

  /** G usable groups with no unfinished group before the last of them in draw order. */
  private settled(): boolean {
    let usable = 0;
    for (const g of this.groups) {
      if (!g.done) return false;
      if (g.usable && ++usable === this.sim.settings.shape.groups) return true;
    }
    return false;
  }
}

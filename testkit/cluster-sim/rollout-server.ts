import { BASE_VERSION } from '../../core/policy-versions.js';
import type { EventQueue } from './event-queue.js';

/**
 * How long a rollout server takes, continuous batching as vLLM does it: every decode iteration gives each sequence in
 * the batch one token. An iteration reads the weights and every sequence's KV cache, and computes one token per
 * sequence; it takes the longer of the two (the roofline) plus a fixed overhead, so each sequence's tokens/s falls as
 * the batch and its contexts grow. A turn first prefills its new prompt tokens (its whole context when the prefix
 * cache lost it: a reload resets it, and a server whose episodes' contexts outgrow the cache evicts them); prefill
 * runs beside the batch without slowing it. Requests whose contexts do not fit the KV cache together wait their turn.
 */
export interface ServerModel {
  iterationOverheadS: number;
  weightsReadS: number;
  kvReadPerContextTokenS: number;
  computePerSequenceS: number;
  prefillTokensPerS: number;
  kvCacheTokens: number;
}

interface Request {
  promptTokens: number;
  tokens: number;
  context: number;
  done: (now: number) => void;
  /** Decoding: the value of `progress` at which its last token is out. */
  target?: number;
}

/**
 * One simulated rollout server. Every sequence in the batch advances at the same tokens per second, so one counter
 * (`progress`, tokens per sequence since the start) tells when each finishes. A publish pauses it between turns:
 * turns that would start wait, the turns under way end, then it reloads and the waiting turns start on the new version.
 */
export class RolloutServer {
  version = BASE_VERSION;
  /** Episodes routed here and not finished: the load the fleet balances on. */
  episodes = 0;
  /** The contexts of those episodes: what the prefix cache would have to hold to keep them all. */
  residentTokens = 0;
  /** Seconds with at least one request prefilling or decoding. */
  busyS = 0;
  /** Seconds spent loading published weights. */
  reloadingS = 0;
  private readonly decoding: Request[] = [];
  private readonly admission: Request[] = [];
  private prefilling = 0;
  /** Contexts of the requests prefilling or decoding. */
  private activeTokens = 0;
  private decodingTokens = 0;
  private progress = 0;
  private minTarget = Infinity;
  private last = 0;
  private paused = false;
  private readonly waiting: ((now: number) => void)[] = [];
  private reload?: { version: number; seconds: number; done: (now: number) => void };

  constructor(
    private readonly model: ServerModel,
    private readonly queue: EventQueue,
  ) {}

  /** Whether an episode's context, cached under `version`, is still in the prefix cache. */
  cached(version: number): boolean {
    return version === this.version && this.residentTokens <= this.model.kvCacheTokens;
  }

  /** Starts a turn now, or once a reload under way is over; `start` gets the version that will sample it. */
  whenServing(now: number, start: (now: number) => void): void {
    if (this.paused) this.waiting.push(start);
    else start(now);
  }

  /** Prefills `promptTokens`, then decodes `tokens` with `context` tokens before them; `done` when the last is out. */
  runTurn(now: number, promptTokens: number, tokens: number, context: number, done: (now: number) => void): void {
    this.advance(now);
    const request = { promptTokens, tokens, context, done };
    if (this.admission.length > 0 || !this.fits(request)) this.admission.push(request);
    else this.admit(now, request);
  }

  /** When the next decoding request finishes; Infinity when none decodes. */
  nextCompletion(): number {
    if (this.decoding.length === 0) return Infinity;
    return this.last + Math.max(0, this.minTarget - this.progress) * this.iterationS();
  }

  /** Ends the requests due at `now` (the time nextCompletion gave). */
  completeDue(now: number): void {
    this.advance(now);
    this.progress = Math.max(this.progress, this.minTarget);
    const due = this.decoding.filter((r) => r.target! <= this.progress + 1e-6);
    for (const r of due) this.decoding.splice(this.decoding.indexOf(r), 1);
    this.decodingTokens = this.decoding.reduce((sum, r) => sum + r.context, 0);
    this.minTarget = this.decoding.reduce((min, r) => Math.min(min, r.target!), Infinity);
    for (const r of due) this.finish(now, r);
  }

  /** Pauses between turns, reloads for `seconds` once the turns under way have ended, then serves `version`. */
  publish(now: number, version: number, seconds: number, done: (now: number) => void): void {
    this.advance(now);
    this.paused = true;
    this.reload = { version, seconds, done };
    this.reloadWhenIdle(now);
  }

  /** Counts busy time up to `now`. */
  advance(now: number): void {
    const dt = now - this.last;
    if (dt <= 0) return;
    if (this.decoding.length > 0) this.progress += dt / this.iterationS();
    if (this.decoding.length + this.prefilling > 0) this.busyS += dt;
    this.last = now;
  }

  private fits(r: Request): boolean {
    return this.activeTokens === 0 || this.activeTokens + r.context <= this.model.kvCacheTokens;
  }

  private admit(now: number, r: Request): void {
    this.prefilling += 1;
    this.activeTokens += r.context;
    this.queue.at(now + r.promptTokens / this.model.prefillTokensPerS, (t) => {
      this.advance(t);
      this.prefilling -= 1;
      if (r.tokens === 0) return this.finish(t, r);
      r.target = this.progress + r.tokens;
      this.decoding.push(r);
      this.decodingTokens += r.context;
      this.minTarget = Math.min(this.minTarget, r.target);
    });
  }

  private finish(now: number, r: Request): void {
    this.activeTokens -= r.context;
    while (this.admission.length > 0 && this.fits(this.admission[0]!)) this.admit(now, this.admission.shift()!);
    this.reloadWhenIdle(now);
    r.done(now);
  }

  private iterationS(): number {
    const m = this.model;
    const read = m.weightsReadS + m.kvReadPerContextTokenS * this.decodingTokens;
    return m.iterationOverheadS + Math.max(read, m.computePerSequenceS * this.decoding.length);
  }

  private reloadWhenIdle(now: number): void {
    const reload = this.reload;
    if (!reload || this.decoding.length + this.prefilling + this.admission.length > 0) return;
    this.reload = undefined;
    this.reloadingS += reload.seconds;
    this.queue.at(now + reload.seconds, (t) => {
      this.advance(t);
      this.version = reload.version;
      this.paused = false;
      for (const start of this.waiting.splice(0)) start(t);
      reload.done(t);
    });
  }
}

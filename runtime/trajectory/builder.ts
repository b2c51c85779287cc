import { appendAll } from '../../core/arrays.js';
import type { TrajectoryBuilderState } from '../../schemas/checkpoint.js';
import type { Trajectory, TrajectoryDrift, TrajectorySegment } from '../../schemas/trajectory.js';
import { joinParts, type RenderedPart } from '../interpreter/renderer.js';
import { findDrift } from './drift.js';
import type { Tokenizer } from './tokenizer.js';

/** A sampled completion as the policy server returned it. */
export interface SampleTokens {
  tokenIds: readonly number[];
  logprobs: readonly number[];
  policyVersion: string;
  finishReason: 'stop' | 'length';
}

/**
 * Token-in/token-out trajectory of one episode. Sampled ids and logprobs are appended exactly as returned; only new
 * observation text (the part of the rendered conversation the tokens do not cover yet) is tokenised. The builder
 * never re-tokenises what is already there, so what is trained on is what was sampled.
 */
export class TrajectoryBuilder {
  private readonly tokenIds: number[] = [];
  private readonly lossMask: number[] = [];
  private readonly logprobs: number[] = [];
  private readonly segments: TrajectorySegment[] = [];
  private readonly versions: string[] = [];
  /** The text the tokens are meant to spell. */
  private text = '';
  private drift: TrajectoryDrift | null = null;

  constructor(private readonly tokenizer: Tokenizer) {}

  /** Everything built so far, for the turn checkpoint. */
  state(): TrajectoryBuilderState {
    return {
      tokenIds: [...this.tokenIds],
      lossMask: [...this.lossMask],
      rolloutLogprobs: [...this.logprobs],
      segments: this.segments.map((s) => ({ ...s })),
      policyVersions: [...this.versions],
      text: this.text,
      drift: this.drift,
    };
  }

  /** Go back to an earlier state of this builder (a turn given up at the episode's deadline). */
  reset(state: TrajectoryBuilderState): void {
    for (const list of [this.tokenIds, this.lossMask, this.logprobs, this.segments, this.versions]) list.length = 0;
    this.restore(state);
  }

  /** Continue from a checkpointed state (a builder that has built nothing yet). */
  restore(state: TrajectoryBuilderState): void {
    if (this.tokenIds.length > 0) throw new Error('trajectory: restore() needs an empty builder');
    appendAll(this.tokenIds, state.tokenIds);
    appendAll(this.lossMask, state.lossMask);
    appendAll(this.logprobs, state.rolloutLogprobs);
    appendAll(
      this.segments,
      state.segments.map((s) => ({ ...s })),
    );
    appendAll(this.versions, state.policyVersions);
    this.text = state.text;
    this.drift = state.drift;
  }

  get tokens(): readonly number[] {
    return this.tokenIds;
  }

  /**
   * Extend the trajectory to cover `rendered` (the rendered conversation plus generation prompt, as text or as the
   * renderer's parts). The tokens so far must spell a prefix of it; if they do not, the interpreter rendered history
   * differently from what was sampled: that drift is recorded (the episode will not be trained on) and the new text
   * is appended all the same. Content parts holding a spelling of `controlTokens` are tokenised in pieces cut just
   * after its first character, so a tool result that says "<|im_end|>" stays those characters, never the token.
   */
  async observe(rendered: string | readonly RenderedPart[], controlTokens?: RegExp): Promise<void> {
    const parts: readonly RenderedPart[] =
      typeof rendered === 'string' ? [{ text: rendered, kind: 'markup' }] : rendered;
    const full = joinParts(parts);
    if (!full.startsWith(this.text))
      this.drift ??= findDrift(full.slice(0, this.text.length), this.text, this.segments);
    const observation = full.slice(this.text.length);
    if (observation === '') return;
    const pieces = observationPieces(parts, this.text.length, controlTokens);
    const ids = (await Promise.all(pieces.map((piece) => this.tokenizer.tokenize(piece)))).flat();
    this.push(
      'observation',
      ids,
      ids.map(() => 0),
      observation,
    );
  }

  /** Append a sampled completion; `text` is its ids detokenised (what the model wrote, special tokens included). */
  appendSample(sample: SampleTokens, text: string): void {
    if (sample.logprobs.length !== sample.tokenIds.length) {
      throw new Error(`trajectory: ${sample.tokenIds.length} sampled tokens but ${sample.logprobs.length} logprobs`);
    }
    this.push('sample', sample.tokenIds, sample.logprobs, text, sample.policyVersion, sample.finishReason);
    if (!this.versions.includes(sample.policyVersion)) this.versions.push(sample.policyVersion);
  }

  private push(
    kind: TrajectorySegment['kind'],
    ids: readonly number[],
    logprobs: readonly number[],
    text: string,
    policyVersion?: string,
    finishReason?: 'stop' | 'length',
  ): void {
    const segment: TrajectorySegment = {
      kind,
      start: this.tokenIds.length,
      end: this.tokenIds.length + ids.length,
      textStart: this.text.length,
      textEnd: this.text.length + text.length,
    };
    if (policyVersion !== undefined) segment.policyVersion = policyVersion;
    if (finishReason !== undefined) segment.finishReason = finishReason;
    this.segments.push(segment);
    appendAll(this.tokenIds, ids);
    appendAll(this.logprobs, logprobs);
    for (let i = 0; i < ids.length; i++) this.lossMask.push(kind === 'sample' ? 1 : 0);
    this.text += text;
  }

  /**
   * Close the trajectory with the drift check: the whole token sequence, detokenised by the server, must equal the
   * rendered conversation up to the end of the trajectory. `rendered` is the final conversation's rendering.
   */
  async finish(rendered: string): Promise<Trajectory> {
    if (this.drift === null) {
      const actual = await this.tokenizer.detokenize(this.tokenIds);
      this.drift = findDrift(rendered.slice(0, this.text.length), actual, this.segments);
    }
    const { text: _, ...tokens } = this.state();
    return { ...tokens, trainable: this.drift === null };
  }
}

/**
 * The text after `from`, cut into the pieces that are tokenised separately: one piece, unless content holds a
 * spelling of a control token, which is cut after its first character ("<" | "|im_end|>") so no piece contains it.
 * Markup and ordinary content stay together, tokenised exactly as before.
 */
export function observationPieces(parts: readonly RenderedPart[], from: number, controlTokens?: RegExp): string[] {
  const pieces: string[] = [];
  let current = '';
  let offset = 0;
  for (const part of parts) {
    const start = Math.max(from - offset, 0);
    offset += part.text.length;
    if (start >= part.text.length) continue;
    const text = part.text.slice(start);
    if (part.kind === 'markup' || !controlTokens) {
      current += text;
      continue;
    }
    let cut = 0;
    for (const match of text.matchAll(new RegExp(controlTokens.source, 'g'))) {
      current += text.slice(cut, match.index + 1);
      pieces.push(current);
      current = '';
      cut = match.index + 1;
    }
    current += text.slice(cut);
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

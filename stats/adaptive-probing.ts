import { binMasses, mostLikelyBin } from './jeffreys.js';
import { seededRandom } from './random.js';

export interface StoppingRule {
  edges: readonly number[];
  /** Stop once the largest bin mass reaches this; default 0.9. */
  threshold?: number;
  nMax: number;
}

export interface ProbingDecision {
  stop: boolean;
  reason: 'confident' | 'n-max' | 'continue';
  bin: number;
  maxMass: number;
}

export const DEFAULT_STOP_THRESHOLD = 0.9;

/** After c successes in n probe episodes: stop when one bin holds enough posterior mass, or at n_max. */
export function probingDecision(c: number, n: number, rule: StoppingRule): ProbingDecision {
  const masses = binMasses(c, n, rule.edges);
  const bin = mostLikelyBin(masses);
  const maxMass = masses[bin]!;
  if (maxMass >= (rule.threshold ?? DEFAULT_STOP_THRESHOLD)) return { stop: true, reason: 'confident', bin, maxMass };
  if (n >= rule.nMax) return { stop: true, reason: 'n-max', bin, maxMass };
  return { stop: false, reason: 'continue', bin, maxMass };
}

export interface OutcomeSequence {
  taskId: string;
  /** Probe outcomes in the order they were (or would be) observed; its length is the fixed n. */
  outcomes: ReadonlyArray<0 | 1>;
}

export interface AdaptiveSimulation {
  threshold: number;
  tasks: number;
  fixedEpisodes: number;
  adaptiveEpisodes: number;
  saved: number;
  savedFraction: number;
  /** Tasks whose adaptive bin differs from the bin all n outcomes give. */
  binChanged: number;
  binChangedFraction: number;
  perTask: Array<{ taskId: string; fixedN: number; adaptiveN: number; fixedBin: number; adaptiveBin: number }>;
}

/**
 * Replay recorded (or sampled) probe outcomes through the stopping rule: how many episodes it would have saved
 * against running every task to its fixed n, and how often it lands in a different bin.
 */
export function simulateAdaptiveProbing(
  sequences: readonly OutcomeSequence[],
  edges: readonly number[],
  threshold = DEFAULT_STOP_THRESHOLD,
): AdaptiveSimulation {
  const perTask = sequences.map(({ taskId, outcomes }) => {
    const nMax = outcomes.length;
    let c = 0;
    let n = 0;
    let decision = probingDecision(0, 0, { edges, threshold, nMax });
    while (!decision.stop) {
      c += outcomes[n]!;
      n += 1;
      decision = probingDecision(c, n, { edges, threshold, nMax });
    }
    const total = outcomes.reduce<number>((s, r) => s + r, 0);
    return {
      taskId,
      fixedN: nMax,
      adaptiveN: n,
      fixedBin: mostLikelyBin(binMasses(total, nMax, edges)),
      adaptiveBin: decision.bin,
    };
  });
  const fixedEpisodes = perTask.reduce((s, t) => s + t.fixedN, 0);
  const adaptiveEpisodes = perTask.reduce((s, t) => s + t.adaptiveN, 0);
  const binChanged = perTask.filter((t) => t.fixedBin !== t.adaptiveBin).length;
  return {
    threshold,
    tasks: perTask.length,
    fixedEpisodes,
    adaptiveEpisodes,
    saved: fixedEpisodes - adaptiveEpisodes,
    savedFraction: fixedEpisodes > 0 ? (fixedEpisodes - adaptiveEpisodes) / fixedEpisodes : 0,
    binChanged,
    binChangedFraction: perTask.length > 0 ? binChanged / perTask.length : 0,
    perTask,
  };
}

/** Bernoulli outcome sequences of length nMax for tasks with the given true success rates, from a seed. */
export function sampleOutcomeSequences(rates: readonly number[], nMax: number, seed: number): OutcomeSequence[] {
  const random = seededRandom(seed);
  return rates.map((rate, i) => ({
    taskId: `task-${i}`,
    outcomes: Array.from({ length: nMax }, () => (random() < rate ? 1 : 0) as 0 | 1),
  }));
}

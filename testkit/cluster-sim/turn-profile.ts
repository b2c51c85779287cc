import type { EpisodeRecord } from '../../schemas/episode.js';
import type { TrajectorySegment } from '../../schemas/trajectory.js';
import type { ProfiledEpisode, TurnProfile } from '../../schemas/turn-profile.js';
import type { GroupDraw } from './simulation.js';

/**
 * What one episode asked of its rollout server, read from its trajectory: each sampled segment is one completion,
 * prefilled with the observation tokens since the previous one. The record, when there is one, gives the task and the
 * time spent off the server. Undefined when nothing was sampled.
 */
export function profiledEpisode(
  segments: readonly TrajectorySegment[],
  record?: Pick<EpisodeRecord, 'outcome' | 'timings'>,
): ProfiledEpisode | undefined {
  const turns: [number, number][] = [];
  let pending = 0;
  for (const s of segments) {
    if (s.kind === 'observation') pending += s.end - s.start;
    else {
      turns.push([pending, s.end - s.start]);
      pending = 0;
    }
  }
  if (turns.length === 0) return undefined;
  const t = record?.timings;
  return {
    ...(record ? { taskId: record.outcome.taskId, finishReason: record.outcome.finishReason } : {}),
    turns,
    trailingTokens: pending,
    envMsPerTurn: t ? round((t.toolsMs + t.userMs) / turns.length) : 0,
    overheadMs: t ? round(Math.max(0, t.totalMs - t.agentMs - t.toolsMs - t.userMs)) : 0,
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Groups drawn as a campaign draws them: a task, then `rollouts` episodes of that task (with replacement), so the
 * lengths within a group are as alike as the profile's were. Without task ids, every episode is drawn on its own.
 */
export function groupsFromProfile(profile: TurnProfile): GroupDraw {
  const byTask = new Map<string, ProfiledEpisode[]>();
  const all = profile.episodes;
  if (all.every((e) => e.taskId !== undefined))
    for (const e of all) byTask.set(e.taskId!, [...(byTask.get(e.taskId!) ?? []), e]);
  const tasks = [...byTask.values()];
  const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;
  return (random, rollouts) => {
    const pool = tasks.length > 0 ? pick(tasks, random) : all;
    return Array.from({ length: rollouts }, () => pick(pool, random));
  };
}

/** The distribution in a few figures: turns per episode, tokens per turn, episode tokens, time off the server. */
export function profileSummary(profile: TurnProfile): Record<string, Quantiles> {
  const eps = profile.episodes;
  const turns = eps.flatMap((e) => e.turns);
  return {
    'turns per episode': quantiles(eps.map((e) => e.turns.length)),
    'sampled tokens per turn': quantiles(turns.map(([, s]) => s)),
    'new prompt tokens per turn': quantiles(turns.map(([p]) => p)),
    'tokens per episode': quantiles(eps.map((e) => e.turns.reduce((sum, [p, s]) => sum + p + s, e.trailingTokens))),
    'tools + user ms per turn': quantiles(eps.map((e) => e.envMsPerTurn)),
    'other ms per episode': quantiles(eps.map((e) => e.overheadMs)),
  };
}

export interface Quantiles {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function quantiles(values: number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return { mean, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
}

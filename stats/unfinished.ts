import type { FinishReason } from '../schemas/episode.js';
import type { UnfinishedCriterion } from '../schemas/demo.js';
import { accurateSum } from './sum.js';
import type { Table } from './tables/table.js';

/** Episodes that stopped before the agent or the user ended them: they ran out of turns, tokens, context or time. */
export const UNFINISHED: readonly FinishReason[] = ['max_turns', 'max_tokens', 'context_overflow', 'timeout'];

export interface EpisodeCostRow {
  finishReason: FinishReason;
  /** Agent tokens of the episode, input and output. */
  agentTokens: number;
  costUsd: number;
}

export interface UnfinishedSummary {
  episodes: number;
  unfinished: number;
  byReason: Partial<Record<FinishReason, number>>;
  share: number;
  meanAgentTokens: number;
  meanCostUsd: number;
}

export function summarizeUnfinished(rows: readonly EpisodeCostRow[]): UnfinishedSummary {
  const byReason: Partial<Record<FinishReason, number>> = {};
  for (const row of rows)
    if (UNFINISHED.includes(row.finishReason)) byReason[row.finishReason] = (byReason[row.finishReason] ?? 0) + 1;
  const unfinished = Object.values(byReason).reduce((a, b) => a + b, 0);
  const n = rows.length;
  return {
    episodes: n,
    unfinished,
    byReason,
    share: n ? unfinished / n : 0,
    meanAgentTokens: n ? accurateSum(rows.map((r) => r.agentTokens)) / n : 0,
    meanCostUsd: n ? accurateSum(rows.map((r) => r.costUsd)) / n : 0,
  };
}

export interface UnfinishedVerdict {
  base: UnfinishedSummary;
  trained: UnfinishedSummary;
  met: boolean;
  /** Each bound that was exceeded, in words. */
  missed: string[];
}

/**
 * The criterion fixed in the preset before a run, on training-split episodes only: the trained policy's last rollouts
 * against the base policy's probe of the same candidates. Unfinished share may rise by at most `maxRisePoints`, and
 * agent tokens and cost per episode may grow by at most `maxCostRatio`.
 */
export function judgeUnfinished(
  base: readonly EpisodeCostRow[],
  trained: readonly EpisodeCostRow[],
  criterion: UnfinishedCriterion,
): UnfinishedVerdict {
  const b = summarizeUnfinished(base);
  const t = summarizeUnfinished(trained);
  const missed: string[] = [];
  const rise = (t.share - b.share) * 100;
  if (rise > criterion.maxRisePoints)
    missed.push(`unfinished share rose ${rise.toFixed(1)} points (bound ${criterion.maxRisePoints})`);
  const ratio = (after: number, before: number) => (before > 0 ? after / before : after > 0 ? Infinity : 1);
  const tokens = ratio(t.meanAgentTokens, b.meanAgentTokens);
  if (tokens > criterion.maxCostRatio)
    missed.push(`agent tokens per episode ${tokens.toFixed(2)}x the base's (bound ${criterion.maxCostRatio}x)`);
  const cost = ratio(t.meanCostUsd, b.meanCostUsd);
  if (cost > criterion.maxCostRatio)
    missed.push(`cost per episode ${cost.toFixed(2)}x the base's (bound ${criterion.maxCostRatio}x)`);
  return { base: b, trained: t, met: missed.length === 0 && t.episodes > 0 && b.episodes > 0, missed };
}

export function unfinishedTable(verdict: UnfinishedVerdict, criterion: UnfinishedCriterion): Table {
  const row = (label: string, s: UnfinishedSummary) => [
    label,
    String(s.episodes),
    `${(s.share * 100).toFixed(1)}%`,
    ...UNFINISHED.map((r) => String(s.byReason[r] ?? 0)),
    s.meanAgentTokens.toFixed(0),
    `${(s.meanCostUsd * 1000).toFixed(3)}`,
  ];
  return {
    id: 'unfinished',
    title: `Unfinished episodes and cost, training split (criterion fixed in the preset: ${verdict.met ? 'met' : 'missed'})`,
    headers: ['policy', 'episodes', 'unfinished', ...UNFINISHED, 'agent tokens/ep', 'm$/ep'],
    rows: [
      row('base (probe)', verdict.base),
      row(`trained (rollouts of the last ${criterion.lastSteps} steps)`, verdict.trained),
    ],
    note:
      `bounds: unfinished share +${criterion.maxRisePoints} points, tokens and cost per episode ${criterion.maxCostRatio}x` +
      (verdict.missed.length ? `; missed: ${verdict.missed.join('; ')}` : ''),
  };
}

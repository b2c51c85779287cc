import type { EpisodeRecord } from '../../../schemas/episode.js';
import type { StateDiffEntry } from '../../../schemas/grading.js';
import { episodeSummaryLine } from './summary-line.js';

/**
 * Everything `finalstate episode show` and the HTML episode page show about one episode, computed once from its
 * record (control database, table `episodes`) so that the two renderings cannot disagree.
 */
export interface EpisodeView {
  episodeId: string;
  reward: 0 | 1;
  summary: string;
  facts: Array<[label: string, value: string]>;
  conversation: ViewTurn[];
  diff: ViewDiffRow[];
  assertions: Array<{ pass: boolean; description: string; detail: string }>;
  rubrics: Array<{ verdict: string; kind: string; detail: string }>;
  /** index null: the call was refused before it ran (bad arguments, unknown tool), so it used up no call index. */
  toolCalls: Array<{
    index: number | null;
    tool: string;
    arguments: string;
    isError: boolean;
    ms: number;
    result: string;
  }>;
}

export interface ViewTurn {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** e.g. "agent turn 2 · policy 1 · resumed here". */
  label: string;
  reasoning?: string;
  text: string;
  /** The model's output exactly as sampled, when it differs from what the text and calls show (parse failures). */
  raw?: string;
  /** The calls the turn wrote; `run: false` when a parse failure stopped the whole turn (no call of it ran). */
  calls: Array<{ tool: string; arguments: string; run: boolean }>;
}

export interface ViewDiffRow {
  kind: StateDiffEntry['kind'];
  table: string;
  key: string;
  column: string;
  expected: string;
  actual: string;
}

const json = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v));
const ms = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v)} ms`);

export function diffRow(entry: StateDiffEntry): ViewDiffRow {
  const key = Object.entries(entry.key)
    .map(([k, v]) => `${k}=${json(v)}`)
    .join(', ');
  switch (entry.kind) {
    case 'changed_value':
      return {
        kind: entry.kind,
        table: entry.table,
        key,
        column: entry.column,
        expected: json(entry.expected),
        actual: json(entry.actual),
      };
    case 'missing_row':
    case 'deleted_row':
      return {
        kind: entry.kind,
        table: entry.table,
        key,
        column: '(row)',
        expected: json(entry.expected),
        actual: '—',
      };
    case 'unexpected_row':
      return { kind: entry.kind, table: entry.table, key, column: '(row)', expected: '—', actual: json(entry.actual) };
  }
}

/** The record's summary line (also stored on new outcomes; recomputed here so older records have one too). */
export function summaryOf(record: EpisodeRecord): string {
  const o = record.outcome;
  if (o.summary) return o.summary;
  return episodeSummaryLine({
    taskId: o.taskId,
    trial: o.trial,
    reward: o.reward,
    diff: record.grade.diff,
    failedAssertions: record.grade.assertions.filter((a) => !a.pass).length,
    failedRubrics: record.rubricVerdicts.filter((v) => !v.passed).length,
    toolCalls: record.toolCalls.length,
    finishReason: o.finishReason,
  });
}

export function episodeView(record: EpisodeRecord, storedAt?: Date): EpisodeView {
  const o = record.outcome;
  const t = record.timings;
  const versions = [...new Set(record.turns.map((turn) => turn.policyVersion))];
  const usage = o.usage;
  const facts: Array<[string, string]> = [
    ['task', `${o.taskId} (${o.domain}, ${o.split} split${o.tags.length ? `, tags ${o.tags.join(' ')}` : ''})`],
    ['trial', String(o.trial)],
    ['campaign', o.campaignId ?? '—'],
    ['step', o.step === undefined ? '—' : String(o.step)],
    ['group', record.group === undefined ? '—' : String(record.group)],
    ['reward', `${o.reward}${o.error ? ` (error: ${o.error})` : ''}`],
    ['finish reason', o.finishReason],
    [
      'state',
      record.grade.stateMatches
        ? 'matches the expected state'
        : `${record.grade.diff.length} difference${record.grade.diff.length === 1 ? '' : 's'} from the expected state`,
    ],
    [
      'cost',
      `${o.costUsd.toFixed(6)} $ (agent ${usage.agent.inputTokens} in / ${usage.agent.outputTokens} out tokens, user ${usage.user.inputTokens}/${usage.user.outputTokens}, judge ${usage.judge.inputTokens}/${usage.judge.outputTokens})${record.unpricedModels.length ? `; unpriced: ${record.unpricedModels.join(', ')}` : ''}`,
    ],
    ['policy versions', versions.length ? versions.join(', ') : '—'],
    [
      'timings',
      `total ${ms(t.totalMs)}: agent ${ms(t.agentMs)}, tools ${ms(t.toolsMs)}, user ${ms(t.userMs)}, grading ${ms(t.gradingMs)}, provision ${ms(t.provisionMs)}, MCP session ${ms(t.mcpSessionMs)}, trajectory ${ms(t.trajectoryMs)}`,
    ],
    [
      'retries',
      record.resumedAt.length
        ? `resumed from the turn checkpoint after agent turn ${record.resumedAt.join(', then ')}`
        : 'none resumed (first attempt completed)',
    ],
    [
      'trajectory',
      o.trajectoryUri
        ? `${o.trajectoryUri}${o.trainable ? '' : ' (not trainable)'}${record.trajectoryDrift ? ' (drifted from the rendered conversation)' : ''}`
        : '— (oracle or provider-interpreted)',
    ],
    ['interpreted by', record.interpretedBy],
  ];
  if (record.unjudgedRubrics) facts.push(['unjudged rubrics', `${record.unjudgedRubrics} (no judge configured)`]);
  if (storedAt) facts.push(['stored', storedAt.toISOString()]);

  const conversation: ViewTurn[] = [
    {
      role: 'system',
      label: `system · ${record.transcript.tools.length} tools offered`,
      text: record.transcript.system,
      calls: [],
    },
  ];
  let agentTurn = 0;
  const resumedAfter = new Set(record.resumedAt);
  for (const turn of record.transcript.turns) {
    if (turn.role === 'assistant' && turn.direct) {
      conversation.push({
        role: 'assistant',
        label: "a tool's direct response (forwarded, not sampled)",
        text: turn.content,
        calls: [],
      });
    } else if (turn.role === 'assistant') {
      const meta = record.turns[agentTurn];
      const parts = [`agent turn ${agentTurn + 1}`];
      if (meta) parts.push(`policy version ${meta.policyVersion}`, `model ${meta.model}`);
      if (meta?.parseFailures) parts.push(`${meta.parseFailures} parse failure${meta.parseFailures === 1 ? '' : 's'}`);
      if (resumedAfter.has(agentTurn) && agentTurn > 0) parts.push('resumed here after a retry');
      agentTurn += 1;
      conversation.push({
        role: 'assistant',
        label: parts.join(' · '),
        ...(turn.reasoning ? { reasoning: turn.reasoning } : {}),
        text: turn.content,
        ...(turn.raw !== undefined && (meta?.parseFailures || (!turn.content && turn.toolCalls.length === 0))
          ? { raw: turn.raw }
          : {}),
        calls: turn.toolCalls.map((c) => ({
          tool: c.tool,
          arguments: JSON.stringify(c.arguments),
          run: !meta?.parseFailures,
        })),
      });
    } else
      conversation.push({
        role: turn.role,
        label: turn.role === 'tool' ? 'tool result (what the agent saw)' : 'user',
        text: turn.content,
        calls: [],
      });
  }

  return {
    episodeId: o.episodeId,
    reward: o.reward,
    summary: summaryOf(record),
    facts,
    conversation,
    diff: record.grade.diff.map(diffRow),
    assertions: record.grade.assertions.map((a) => ({
      pass: a.pass,
      description: a.description,
      detail: a.error ?? (a.actual ? `actual ${JSON.stringify(a.actual)}` : ''),
    })),
    rubrics: record.rubricVerdicts.map((v) => ({
      verdict: v.passed ? 'passed' : 'failed',
      kind: v.kind,
      detail: `${v.detail}${v.motivation ? ` (judge: ${v.motivation})` : ''}`,
    })),
    toolCalls: record.toolCalls.map((c) => ({
      index: c.index,
      tool: c.tool,
      arguments: JSON.stringify(c.arguments),
      isError: c.isError,
      ms: c.ms,
      result: c.result,
    })),
  };
}

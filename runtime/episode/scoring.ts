import { finalStateHolds } from '../../environment/grader.js';
import type { Conversation } from '../../schemas/conversation.js';
import type { FinishReason } from '../../schemas/episode.js';
import { StateDiffEntry, type GradeReport, type RubricStatus, type StateCheck } from '../../schemas/grading.js';
import type { RubricVerdict, TokenUsage } from '../../schemas/runtime.js';
import type { Rubric } from '../../schemas/task.js';
import type { GradeResponse } from '../../schemas/thinkingbox.js';
import { evaluateRubrics, type RubricJudge } from '../rubrics/evaluate.js';

export interface ScoringInput {
  /** The grader's check of the final state (environment/grader.ts). */
  check: StateCheck;
  /** The task's rubrics, in the task's order. */
  rubrics: readonly Rubric[];
  conversation: Conversation;
  finishReason: FinishReason;
  /** Decides the judge rubrics; without one they are left unjudged and do not count. */
  judge?: RubricJudge;
}

/** An episode's score: the reward and every grading field its outcome and record carry. */
export interface EpisodeScore {
  reward: 0 | 1;
  /** How the conversation ended: recorded beside the reward, never part of it. */
  finishReason: FinishReason;
  /** `grade.pass` is `reward === 1`, always. */
  grade: GradeReport;
  rubricVerdicts: RubricVerdict[];
  unjudgedRubrics: number;
  judgeUsage: TokenUsage;
  judgeModel: string | null;
  failedAssertions: number;
  failedRubrics: number;
}

/**
 * The one place that decides a reward, in training and evaluation alike: 1 when the final state matches the expected
 * state, every SQL assertion holds and every evaluated rubric passed (deterministic rubrics always; judge rubrics when
 * the episode has a judge, else they are unjudged and do not count), otherwise 0. The finish reason does not enter:
 * an agent that ran out of turns with the right state is right. A judge that cannot be reached is an
 * InfrastructureError (the episode is retried, never scored); an answer the judge's parse rule cannot read fails its
 * rubric.
 */
export async function scoreEpisode(input: ScoringInput): Promise<EpisodeScore> {
  const { check, rubrics, conversation, finishReason, judge } = input;
  const rubricPass = await evaluateRubrics(rubrics, conversation, judge);
  const verdictOf = new Map(rubricPass.verdicts.map((v) => [v.rubric, v]));
  const statuses: RubricStatus[] = rubrics.map((rubric, index) => {
    const verdict = verdictOf.get(index);
    const status = verdict ? (verdict.passed ? 'passed' : 'failed') : 'needs_judge';
    return { kind: rubric.kind, description: rubric.description, status };
  });
  const failedRubrics = rubricPass.verdicts.filter((v) => !v.passed).length;
  const pass = finalStateHolds(check) && failedRubrics === 0;
  return {
    reward: pass ? 1 : 0,
    finishReason,
    grade: { ...check, pass, rubrics: statuses, pendingJudgeRubrics: rubricPass.unjudged.length },
    rubricVerdicts: rubricPass.verdicts,
    unjudgedRubrics: rubricPass.unjudged.length,
    judgeUsage: rubricPass.judgeUsage,
    judgeModel: rubricPass.judgeModel,
    failedAssertions: check.assertions.filter((a) => !a.pass).length,
    failedRubrics,
  };
}

/** ThinkingBox's verdict on an episode (its test runner's TestResult, run by the sidecar) and what it graded. */
export interface ThinkingBoxScoringInput {
  taskId: string;
  taskSha256: string;
  /** "file.py:test_name": named in the grade. */
  uid: string;
  verdict: GradeResponse;
  /** Each server's effects (business servers: result and golden state hashes and their diff). */
  effects: Record<string, unknown>;
  finishReason: FinishReason;
}

/**
 * A ThinkingBox task's score, decided here as every other: 1 when ThinkingBox's test passed (its body raised nothing:
 * the state checks and every judged question held), else 0. Questions asked of a judge the episode does not have are
 * answered YES for the rest of the body to run, and counted as unjudged, exactly as an unjudged rubric of a native
 * task: they do not count. A body that raised anything but an AssertionError never gets here (a malformed task).
 */
export function scoreThinkingBoxEpisode(input: ThinkingBoxScoringInput): EpisodeScore {
  const { verdict, effects } = input;
  const pass = verdict.result && !verdict.isSystemError;
  const hashes = Object.values(effects).filter(
    (e): e is { result_db_hash: string; golden_db_hash: string; diff?: unknown } =>
      typeof e === 'object' && e !== null && 'result_db_hash' in e && 'golden_db_hash' in e,
  );
  const diff = Object.entries(effects).flatMap(([server, e]) =>
    Array.isArray((e as { diff?: unknown })?.diff)
      ? (e as { diff: { path?: unknown; type?: unknown; result?: unknown; golden?: unknown }[] }).diff.map((d) => ({
          kind: 'changed_value' as const,
          table: server,
          key: { path: String(d.path ?? '') },
          column: String(d.type ?? 'difference'),
          expected: d.golden ?? null,
          actual: d.result ?? null,
        }))
      : [],
  );
  const failedLine = verdict.result ? undefined : `line ${verdict.lineno}: ${verdict.lineContent.trim()}`;
  const rubrics: RubricStatus[] = [
    ...verdict.judged.map((j) => ({
      kind: 'judge' as const,
      description: j.question,
      status: (verdict.result || !/judge/.test(verdict.lineContent) ? 'passed' : 'failed') as 'passed' | 'failed',
    })),
    ...verdict.unjudged.map((q) => ({ kind: 'judge' as const, description: q, status: 'needs_judge' as const })),
  ];
  return {
    reward: pass ? 1 : 0,
    finishReason: input.finishReason,
    grade: {
      taskId: input.taskId,
      taskSha256: input.taskSha256,
      stateMatches: hashes.length > 0 ? hashes.every((h) => h.result_db_hash === h.golden_db_hash) : pass,
      expectedStateSha256: hashes.map((h) => h.golden_db_hash).join(',') || '-',
      actualStateSha256: hashes.map((h) => h.result_db_hash).join(',') || '-',
      diff,
      assertions: [
        {
          description: `ThinkingBox test ${input.uid}`,
          pass,
          ...(failedLine ? { error: `${failedLine}\n${lastLine(verdict.tb)}`.trim() } : {}),
        },
      ],
      pass,
      rubrics,
      pendingJudgeRubrics: verdict.unjudged.length,
    },
    rubricVerdicts: [],
    unjudgedRubrics: verdict.unjudged.length,
    judgeUsage: judgeUsageOf(verdict),
    judgeModel: verdict.judged.length > 0 ? 'thinkingbox-judge' : null,
    failedAssertions: pass ? 0 : 1,
    failedRubrics: rubrics.filter((r) => r.status === 'failed').length,
  };
}

const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

function judgeUsageOf(verdict: GradeResponse): TokenUsage {
  const usage = (verdict.judgeUsage ?? {}) as Record<string, unknown>;
  const n = (k: string) => (typeof usage[k] === 'number' ? usage[k] : 0);
  return {
    inputTokens: n('prompt_tokens') || n('inputTokens'),
    cachedInputTokens: n('cachedInputTokens'),
    outputTokens: n('completion_tokens') || n('outputTokens'),
  };
}

/** An OpenEnv environment's terminal step (runtime/episode/environments/openenv.ts) and what it graded. */
export interface OpenEnvScoringInput {
  taskId: string;
  taskSha256: string;
  /** The server, named in the grade. */
  url: string;
  /**
   * The terminal step: its reward (a number: a terminal step without one never gets here, it is infrastructure) and
   * observation (its `diff`, StateDiffEntry[], and `summary` are kept when the server gives them). Undefined: no step
   * was done when the conversation ended (a tools-only environment whose terminal tool the agent never called).
   */
  terminal: { reward: number; observation: Record<string, unknown> } | undefined;
  /** A reward at least this is a pass (the task part's passReward). */
  passReward: number;
  finishReason: FinishReason;
}

/**
 * An OpenEnv task's score, decided here as every other: 1 when the environment's terminal reward reaches the task's
 * passReward, else 0 (finalstate's rewards are 0/1; the environment's own number is kept in the grade). The
 * environment graded its own final state; a diff it reports (finalstate's own served environment does) is kept. A
 * tools-only environment that never reached its terminal step (the agent ended without finishing) is a 0: the agent's
 * outcome, as a conversation that ends with the wrong final state.
 */
export function scoreOpenEnvEpisode(input: OpenEnvScoringInput): EpisodeScore {
  const { terminal } = input;
  const pass = terminal !== undefined && terminal.reward >= input.passReward;
  const diff = StateDiffEntry.array().safeParse(terminal?.observation.diff);
  const summary = typeof terminal?.observation.summary === 'string' ? terminal.observation.summary : undefined;
  const description = terminal
    ? `OpenEnv reward ${terminal.reward} from ${input.url} (a pass at ${input.passReward} or more)`
    : `OpenEnv episode on ${input.url}: no step was done when the conversation ended, so no reward (the task was not finished)`;
  return {
    reward: pass ? 1 : 0,
    finishReason: input.finishReason,
    grade: {
      taskId: input.taskId,
      taskSha256: input.taskSha256,
      stateMatches: pass,
      expectedStateSha256: '-',
      actualStateSha256: '-',
      diff: diff.success ? diff.data : [],
      assertions: [{ description, pass, ...(!pass && summary !== undefined ? { error: summary } : {}) }],
      pass,
      rubrics: [],
      pendingJudgeRubrics: 0,
    },
    rubricVerdicts: [],
    unjudgedRubrics: 0,
    judgeUsage: { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
    judgeModel: null,
    failedAssertions: pass ? 0 : 1,
    failedRubrics: 0,
  };
}

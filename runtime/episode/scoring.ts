import { finalStateHolds } from '../../environment/grader.js';
import type { Conversation } from '../../schemas/conversation.js';
import type { FinishReason } from '../../schemas/episode.js';
import type { GradeReport, RubricStatus, StateCheck } from '../../schemas/grading.js';
import type { RubricVerdict, TokenUsage } from '../../schemas/runtime.js';
import type { Rubric } from '../../schemas/task.js';
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
